/**
 * Scene texts of short promo and how-to videos, half Russian and half English, each with the pictures (Twemoji file
 * names) that show what it is about. Labelled by hand before the concepts table was written: where several pictures fit
 * a scene (the offer's product, the offer itself, its time), all of them are listed.
 */

const COFFEE = ['2615'];
const TEA = ['1f375', '2615', '1fad6'];
const MILK = ['1f95b'];
const DISCOUNT = ['1f3f7', '1f6cd'];
const MORNING = ['23f0', '1f305', '1f304', '1f570'];
const EVENING = ['1f306', '1f307', '1f303', '1f319'];
const CALENDAR = ['1f4c5', '1f4c6', '1f5d3'];
const CAT = ['1f408', '1f431', '1f408-200d-2b1b'];
const DOG = ['1f415', '1f436', '1f429'];
const FEED = ['1f963', '1f37d', '1f374', '1f356', '1f41f', '1f372'];
const GROOM = ['1faae', '1f429'];
const SOLAR = ['2600', '1f31e', '1f50b', '26a1', '1f50c'];
const PIZZA = ['1f355'];
const SNEAKERS = ['1f45f'];
const RUNNING = ['1f3c3'];
const PHONE = ['1f4f1', '1f4f2'];
const REPAIR = ['1f527', '1f6e0', '1f9f0', '1fa9b'];
const BICYCLE = ['1f6b2', '1f6b4', '1f6b5'];
const BOOK = ['1f4da', '1f4d6', '1f4d5', '1f4d7', '1f4d8', '1f4d9'];
const FLOWERS = ['1f4ae', '1f490', '1f339', '1f337', '1f33b', '1f338', '1f33c', '1f33a'];
const CAKE = ['1f382', '1f370', '1f9c1'];
const BIRTHDAY = ['1f382', '1f388', '1f389', '1f381'];
const BAKERY = ['1f35e', '1f950', '1f956', '1f96f', '1f9c1'];
const GYM = ['1f3cb', '1f4aa'];
const BEACH = ['1f3d6', '1f334', '1f30a', '1f459', '2600', '1f31e'];
const OFFICE = ['1f3e2', '1f4bc', '1f4bb'];
const SCHOOL = ['1f3eb', '1f392', '1f4da', '270f', '1f4dd', '1f58a'];
const PLANTS = ['1fab4', '1f331', '1f4a7', '1f33f'];
const MONEY = ['1f4b0', '1fa99', '1f4b5', '1f45b', '1f4b3'];
const GROCERIES = ['1f6d2', '1f96c', '1f34e'];
const LEARN = ['1f4da', '1f4d6', '1f524', '1f393', '1f4dd'];
const CONCERT = ['1f3a4', '1f3b8', '1f3b6', '1f3b5', '1f3b9', '1f3ab', '1f39f'];
const WEBINAR = ['1f4bb', '1f5a5', '1f4f9', '1f3a5'];
const HOUSE = ['1f3e0', '1f3e1'];
const OUTDOORS = ['1f3de', '1f3d5', '26fa', '1f333', '1f332'];

export const LABELLED: { lang: 'ru' | 'en'; text: string; codes: string[] }[] = [
  { lang: 'ru', text: 'Скидка 20% на капучино по утрам', codes: [...COFFEE, ...DISCOUNT, ...MORNING] },
  { lang: 'ru', text: 'Скидка 20% на капучино', codes: [...COFFEE, ...DISCOUNT] },
  { lang: 'ru', text: 'Кофейня у дома: свежий кофе каждый день', codes: COFFEE },
  { lang: 'ru', text: 'Латте на овсяном молоке', codes: [...COFFEE, ...MILK] },
  { lang: 'ru', text: 'Зелёный чай с жасмином', codes: TEA },
  { lang: 'ru', text: 'Заходите на чашку чая', codes: TEA },
  { lang: 'ru', text: 'Каждое утро начинайте с кофе', codes: [...COFFEE, ...MORNING] },
  { lang: 'ru', text: 'Утром мы угощаем чаем', codes: [...TEA, ...MORNING] },
  { lang: 'ru', text: 'Как кормить кошку правильно', codes: [...CAT, ...FEED] },
  { lang: 'ru', text: 'Сухой корм или натуральная еда?', codes: FEED },
  { lang: 'ru', text: 'Расчесывайте кошку раз в неделю', codes: [...CAT, ...GROOM] },
  { lang: 'ru', text: 'Как расчесывать длинную шерсть собаки', codes: [...GROOM, ...DOG] },
  { lang: 'ru', text: 'Солнечные панели на крыше дома', codes: [...SOLAR, ...HOUSE] },
  { lang: 'ru', text: 'Энергия солнца бесплатно', codes: SOLAR },
  { lang: 'ru', text: 'Новые кроссовки для бега', codes: [...SNEAKERS, ...RUNNING] },
  { lang: 'ru', text: 'Ремонт телефона за один час', codes: [...PHONE, ...REPAIR] },
  { lang: 'ru', text: 'Городской велосипед для работы', codes: BICYCLE },
  { lang: 'ru', text: 'Книга недели: читаем вместе', codes: BOOK },
  { lang: 'ru', text: 'Букет цветов с доставкой', codes: FLOWERS },
  { lang: 'ru', text: 'Торт на день рождения за сутки', codes: [...CAKE, ...BIRTHDAY] },
  { lang: 'ru', text: 'Горячая пицца за 30 минут', codes: PIZZA },
  { lang: 'ru', text: 'Свежий хлеб в нашей пекарне', codes: BAKERY },
  { lang: 'ru', text: 'Тренировки в спортзале для новичков', codes: GYM },
  { lang: 'ru', text: 'Отдых на пляже этим летом', codes: BEACH },
  { lang: 'ru', text: 'Уютный офис в центре города', codes: OFFICE },
  { lang: 'ru', text: 'Всё для школы: ручки и тетради', codes: SCHOOL },
  { lang: 'ru', text: 'Как поливать комнатные растения', codes: PLANTS },
  { lang: 'ru', text: 'Как экономить деньги на продуктах', codes: [...MONEY, ...GROCERIES] },
  { lang: 'ru', text: 'Учим английский по 15 минут в день', codes: LEARN },
  { lang: 'ru', text: 'Концерт в субботу вечером', codes: [...CONCERT, ...EVENING] },
  { lang: 'ru', text: 'Вебинар для предпринимателей', codes: WEBINAR },
  { lang: 'ru', text: 'Распродажа в чёрную пятницу', codes: [...DISCOUNT, ...CALENDAR] },
  { lang: 'ru', text: 'Выходные за городом', codes: [...CALENDAR, ...OUTDOORS] },
  { lang: 'ru', text: 'Вечерняя прогулка по набережной', codes: [...EVENING, '1f6b6', '1f30a'] },

  { lang: 'en', text: '20% off cappuccino every morning', codes: [...COFFEE, ...DISCOUNT, ...MORNING] },
  { lang: 'en', text: '2 for 1 pizza on Fridays', codes: [...PIZZA, ...DISCOUNT, ...CALENDAR] },
  { lang: 'en', text: 'Your neighbourhood coffee shop', codes: COFFEE },
  { lang: 'en', text: 'Try our oat milk latte', codes: [...COFFEE, ...MILK] },
  { lang: 'en', text: 'Brew the perfect cup of green tea', codes: TEA },
  { lang: 'en', text: 'The café opens at 7 am', codes: [...COFFEE, ...MORNING] },
  { lang: 'en', text: 'How to feed your cat', codes: [...CAT, ...FEED] },
  { lang: 'en', text: 'Feeding a kitten: what to know', codes: [...CAT, ...FEED] },
  { lang: 'en', text: 'Brush your dog twice a week', codes: [...GROOM, ...DOG] },
  { lang: 'en', text: 'Brushing a long-haired cat', codes: [...GROOM, ...CAT] },
  { lang: 'en', text: 'How solar panels work', codes: SOLAR },
  { lang: 'en', text: "Store the sun's energy in a battery", codes: SOLAR },
  { lang: 'en', text: 'New running sneakers, now in stock', codes: [...SNEAKERS, ...RUNNING] },
  { lang: 'en', text: 'Phone screen repair while you wait', codes: [...PHONE, ...REPAIR] },
  { lang: 'en', text: 'Ride a bicycle to work', codes: BICYCLE },
  { lang: 'en', text: 'Our book of the month', codes: BOOK },
  { lang: 'en', text: 'Fresh flowers delivered today', codes: FLOWERS },
  { lang: 'en', text: 'Birthday cakes made to order', codes: [...CAKE, ...BIRTHDAY] },
  { lang: 'en', text: 'Fresh bread from our bakery', codes: BAKERY },
  { lang: 'en', text: 'Join our gym this month', codes: GYM },
  { lang: 'en', text: 'Summer days at the beach', codes: BEACH },
  { lang: 'en', text: 'A quiet office for your team', codes: OFFICE },
  { lang: 'en', text: 'Back to school: pens and notebooks', codes: [...SCHOOL, '1f4d3', '1f4d4'] },
  { lang: 'en', text: 'Water your plants once a week', codes: PLANTS },
  { lang: 'en', text: 'Save money on groceries', codes: [...MONEY, ...GROCERIES] },
  { lang: 'en', text: 'Learn English with a podcast', codes: [...LEARN, '1f3a7', '1f399'] },
  { lang: 'en', text: 'Live concert on Saturday night', codes: [...CONCERT, ...EVENING] },
  { lang: 'en', text: 'Free webinar this Thursday', codes: [...WEBINAR, ...CALENDAR] },
  { lang: 'en', text: 'Sale day: everything 50% off', codes: [...DISCOUNT, ...CALENDAR] },
  { lang: 'en', text: 'Weekend brunch for two', codes: [...CALENDAR, '1f95e', '1f373', '1f950', '1f37d'] },
  { lang: 'en', text: 'Evening yoga to sleep better', codes: [...EVENING, '1f9d8', '1f6cc'] },
  { lang: 'en', text: 'Mornings are for runners', codes: [...MORNING, ...RUNNING] },
  { lang: 'en', text: 'Big discount on every latte', codes: [...COFFEE, ...DISCOUNT] },
  { lang: 'en', text: 'Green tea for a calm afternoon', codes: TEA },
];
