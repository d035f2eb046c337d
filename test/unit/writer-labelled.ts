/**
 * Prompts as customers write them, each labelled with its kind and the words of what it asks to show (the subject, the
 * product or place, the offer, the time, the steps): a scene carries the prompt's content when its caption or voice has
 * one of these words (compared by stem). Half Russian, half English; offers, how-tos, products, places and events.
 */
export interface LabelledPrompt {
  prompt: string;
  kind: 'offer' | 'how-to' | 'product' | 'place' | 'event';
  words: string[];
}

export const LABELLED_PROMPTS: LabelledPrompt[] = [
  // Russian
  {
    prompt: 'Рекламный ролик кофейни у дома, скидка 20% на капучино по утрам',
    kind: 'offer',
    words: ['кофейня', 'капучино', 'скидка', '20%', 'утро', 'утрам'],
  },
  { prompt: 'Видео про уход за кошкой: как часто кормить и расчесывать', kind: 'how-to', words: ['кошка', 'уход', 'кормить', 'расчесывать'] },
  {
    prompt: 'Пекарня на Садовой: свежие круассаны каждое утро, второй кофе бесплатно',
    kind: 'offer',
    words: ['пекарня', 'Садовой', 'круассаны', 'кофе', 'бесплатно', 'утро'],
  },
  {
    prompt: 'Как выбрать беговые кроссовки: амортизация, размер и вес',
    kind: 'how-to',
    words: ['кроссовки', 'беговые', 'амортизация', 'размер', 'вес', 'выбрать'],
  },
  {
    prompt: 'Фитнес-клуб Атлет, первая тренировка бесплатно для новичков',
    kind: 'offer',
    words: ['фитнес', 'клуб', 'Атлет', 'тренировка', 'бесплатно', 'новичков'],
  },
  { prompt: 'Расскажи о пользе утренней зарядки', kind: 'how-to', words: ['польза', 'пользе', 'зарядка', 'утренней'] },
  {
    prompt: 'Новый смартфон Лира: камера 108 мегапикселей и батарея на два дня',
    kind: 'product',
    words: ['смартфон', 'Лира', 'камера', 'мегапикселей', 'батарея'],
  },
  { prompt: 'Цветочный магазин у метро, букеты к 8 марта со скидкой 15%', kind: 'offer', words: ['цветочный', 'магазин', 'букеты', 'марта', 'скидкой', '15%'] },
  { prompt: 'Как поливать комнатные растения зимой', kind: 'how-to', words: ['поливать', 'растения', 'комнатные', 'зимой'] },
  {
    prompt: 'Концерт группы Северный ветер в субботу, билеты от 1500 рублей',
    kind: 'event',
    words: ['концерт', 'группы', 'Северный', 'ветер', 'субботу', 'билеты', '1500'],
  },
  { prompt: 'Детская школа рисования: занятия для детей от 5 лет по выходным', kind: 'place', words: ['школа', 'рисования', 'занятия', 'детей', 'выходным'] },
  { prompt: 'Как копить деньги: три простых правила', kind: 'how-to', words: ['копить', 'деньги', 'правила'] },
  { prompt: 'Вебинар по продажам в четверг в 19:00, регистрация по ссылке', kind: 'event', words: ['вебинар', 'продажам', 'четверг', 'регистрация'] },
  {
    prompt: 'Автосервис на Ленина: замена масла за 30 минут, диагностика в подарок',
    kind: 'offer',
    words: ['автосервис', 'Ленина', 'замена', 'масла', 'диагностика', 'подарок'],
  },
  { prompt: 'Почему стоит учить английский с детства', kind: 'how-to', words: ['учить', 'английский', 'детства'] },
  { prompt: 'Домашний торт на заказ: шоколадный, медовый и ягодный', kind: 'product', words: ['торт', 'заказ', 'шоколадный', 'медовый', 'ягодный'] },
  { prompt: 'Отель у моря в Сочи, завтрак включён, дети до 7 лет бесплатно', kind: 'place', words: ['отель', 'моря', 'Сочи', 'завтрак', 'дети', 'бесплатно'] },
  { prompt: 'Распродажа зимней обуви до конца недели, скидки до 50%', kind: 'offer', words: ['распродажа', 'зимней', 'обуви', 'недели', 'скидки', '50%'] },
  { prompt: 'Как ухаживать за кожаной курткой', kind: 'how-to', words: ['ухаживать', 'кожаной', 'курткой'] },
  {
    prompt: 'Открытие книжного магазина Страница в пятницу: кофе и автограф-сессия',
    kind: 'event',
    words: ['открытие', 'книжного', 'магазина', 'Страница', 'пятницу', 'кофе', 'автограф'],
  },
  // English
  { prompt: 'Funny 30 second video about green tea with a song', kind: 'product', words: ['green', 'tea'] },
  { prompt: 'Explain how solar panels work in 20 seconds, calm tone', kind: 'how-to', words: ['solar', 'panels', 'work'] },
  {
    prompt: 'Promo for our bakery: fresh croissants every morning, 2 for 1 on Fridays',
    kind: 'offer',
    words: ['bakery', 'croissants', 'morning', 'Fridays', '2 for 1'],
  },
  {
    prompt: 'Yoga studio opening: free first class for beginners, book online',
    kind: 'event',
    words: ['yoga', 'studio', 'opening', 'free', 'class', 'beginners', 'book'],
  },
  { prompt: 'How to brew pour-over coffee at home', kind: 'how-to', words: ['brew', 'pour', 'coffee', 'home'] },
  { prompt: 'Our pizza place downtown, 30% off every Tuesday', kind: 'offer', words: ['pizza', 'place', 'downtown', '30%', 'Tuesday'] },
  {
    prompt: 'New wireless earbuds: 30 hours of battery and noise cancelling',
    kind: 'product',
    words: ['wireless', 'earbuds', 'battery', 'noise', 'cancelling', 'hours'],
  },
  { prompt: 'How to train a puppy to sit and stay', kind: 'how-to', words: ['train', 'puppy', 'sit', 'stay'] },
  {
    prompt: 'Summer sale at Green Leaf garden center, all plants 20% off until Sunday',
    kind: 'offer',
    words: ['summer', 'sale', 'Green', 'Leaf', 'garden', 'plants', '20%', 'Sunday'],
  },
  { prompt: 'Why you should drink more water', kind: 'how-to', words: ['drink', 'water'] },
  {
    prompt: 'Jazz night at the Blue Room on Saturday, tickets from $15',
    kind: 'event',
    words: ['jazz', 'night', 'Blue', 'Room', 'Saturday', 'tickets', '$15'],
  },
  { prompt: 'The new electric bike Volt: 80 km range and folds in seconds', kind: 'product', words: ['electric', 'bike', 'Volt', 'range', 'folds'] },
  { prompt: 'Tips for working from home: a desk, breaks and a routine', kind: 'how-to', words: ['working', 'home', 'desk', 'breaks', 'routine'] },
  { prompt: 'Family dentist on Main Street, free checkup for kids', kind: 'place', words: ['family', 'dentist', 'Main', 'Street', 'checkup', 'kids', 'free'] },
  { prompt: 'Handmade candles with soy wax and lavender', kind: 'product', words: ['handmade', 'candles', 'soy', 'wax', 'lavender'] },
  { prompt: 'How to save money on groceries', kind: 'how-to', words: ['save', 'money', 'groceries'] },
  { prompt: 'Boxing gym for women, evening classes from 7 pm', kind: 'place', words: ['boxing', 'gym', 'women', 'evening', 'classes'] },
  { prompt: 'Webinar on personal finance this Thursday, sign up free', kind: 'event', words: ['webinar', 'personal', 'finance', 'Thursday', 'sign', 'free'] },
  {
    prompt: 'Black Friday deal: our running shoes half price this weekend only',
    kind: 'offer',
    words: ['Black', 'Friday', 'deal', 'running', 'shoes', 'half', 'price', 'weekend'],
  },
  { prompt: 'Beach cafe in Malibu: fresh smoothies and ocean views', kind: 'place', words: ['beach', 'cafe', 'Malibu', 'smoothies', 'ocean', 'views'] },
];
