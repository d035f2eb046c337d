/**
 * Prompts labelled with the paid extras they ask for, written as customers write them before the planner's rules
 * were set (issue 37). Most name a song, a voice, AI images or a product only as what the video is about: those ask
 * for nothing, and `keeps` is a word of that subject the topic must still hold.
 */
import type { Extra } from '../../functions/core/pricing.ts';

export interface ExtrasLabelled {
  prompt: string;
  extras: Extra[];
  /** A word of the prompt's subject that names an extra (or a thing of the topic): the planned topic keeps it. */
  keeps: string;
}

/** Prompts that name an extra only as their subject: none of them asks for one. */
export const SUBJECT_ONLY: ExtrasLabelled[] = [
  // English
  { prompt: 'How to record my voice at home', extras: [], keeps: 'voice' },
  { prompt: 'Why does my voice sound so weird on recordings?', extras: [], keeps: 'voice' },
  { prompt: '5 exercises to make my voice deeper', extras: [], keeps: 'voice' },
  { prompt: "What's wrong with my voice after a cold", extras: [], keeps: 'voice' },
  { prompt: 'Voice cloning scams and how to protect your parents', extras: [], keeps: 'voice cloning' },
  { prompt: 'How does AI voice cloning actually work?', extras: [], keeps: 'voice cloning' },
  { prompt: 'The story behind the song Bohemian Rhapsody', extras: [], keeps: 'song' },
  { prompt: 'How to write a catchy song in one evening', extras: [], keeps: 'song' },
  { prompt: 'Top 5 songs to run to', extras: [], keeps: 'songs' },
  { prompt: 'Why whales sing songs to each other', extras: [], keeps: 'songs' },
  { prompt: 'A video about AI images', extras: [], keeps: 'AI images' },
  { prompt: 'How to spot AI-generated pictures on social media', extras: [], keeps: 'AI-generated pictures' },
  { prompt: 'Are AI images real art? A quick debate', extras: [], keeps: 'AI images' },
  { prompt: 'The ethics of AI art, 30 seconds', extras: [], keeps: 'AI art' },
  { prompt: 'Jingle writing tips for local radio ads', extras: [], keeps: 'Jingle' },
  { prompt: 'How product placement works in movies', extras: [], keeps: 'product placement' },
  { prompt: 'Funny video about a parrot that copies my voice', extras: [], keeps: 'voice' },
  { prompt: 'How to make money with AI art in 2025', extras: [], keeps: 'AI art' },
  { prompt: 'Karaoke night: how to pick a song you can actually sing', extras: [], keeps: 'song' },
  { prompt: 'Marketing trends for 2025: short videos, AI images and podcasts', extras: [], keeps: 'AI images' },
  { prompt: 'What went wrong with my product launch: 3 lessons', extras: [], keeps: 'product launch' },
  { prompt: "My voice coach's three breathing tricks", extras: [], keeps: 'voice' },
  // Russian
  { prompt: 'История песни Yesterday', extras: [], keeps: 'песни' },
  { prompt: 'Как записать свой голос дома', extras: [], keeps: 'голос' },
  { prompt: 'Почему мой голос на записи звучит странно', extras: [], keeps: 'голос' },
  { prompt: 'Что не так с моим голосом после простуды', extras: [], keeps: 'голосом' },
  { prompt: 'Клонирование голоса: как мошенники обманывают пенсионеров', extras: [], keeps: 'клонирование голоса' },
  { prompt: 'Как нейросети рисуют картинки', extras: [], keeps: 'картинки' },
  { prompt: 'Видео про ИИ-картинки: можно ли их продавать', extras: [], keeps: 'ИИ-картинки' },
  { prompt: 'Как отличить сгенерированные нейросетью изображения от фотографий', extras: [], keeps: 'сгенерированные нейросетью изображения' },
  { prompt: 'Лучшие песни 90-х, 30 секунд', extras: [], keeps: 'песни' },
  { prompt: 'Как написать песню без музыкального образования', extras: [], keeps: 'песню' },
  { prompt: 'Почему киты поют песни', extras: [], keeps: 'песни' },
  { prompt: 'Упражнения для голоса перед выступлением', extras: [], keeps: 'голоса' },
  { prompt: 'Как выступить с песней на школьном концерте', extras: [], keeps: 'песней' },
  { prompt: 'Обзор нейросетей для генерации картинок', extras: [], keeps: 'картинок' },
  { prompt: 'Как работает скрытая реклама товара в кино', extras: [], keeps: 'реклама товара' },
  { prompt: 'Весёлое видео про попугая, который повторяет мой голос', extras: [], keeps: 'голос' },
  { prompt: 'Как заказать песню на свадьбу', extras: [], keeps: 'песню' },
  { prompt: 'Эксперименты с нейросетевыми картинками: что получилось', extras: [], keeps: 'картинками' },
  { prompt: 'Правда ли, что ИИ-изображения нарушают авторские права?', extras: [], keeps: 'ИИ-изображения' },
  { prompt: 'Как нейросеть клонирует голос по короткой записи', extras: [], keeps: 'голос' },
];

/** Prompts that ask for an extra, some of them about a song, a voice or AI images as well. */
export const ASKING: ExtrasLabelled[] = [
  // English
  { prompt: 'Cats video with a song', extras: ['song'], keeps: 'cats' },
  { prompt: 'Add a song to a video about our bakery', extras: ['song'], keeps: 'bakery' },
  { prompt: 'Video about running shoes, in my voice', extras: ['voice_clone'], keeps: 'running shoes' },
  { prompt: 'Narrate it in my own voice: a tour of our hotel', extras: ['voice_clone'], keeps: 'hotel' },
  { prompt: 'A video about tea with AI-generated visuals', extras: ['ai_visual'], keeps: 'tea' },
  { prompt: 'Use AI images for a video about ancient Rome', extras: ['ai_visual'], keeps: 'ancient Rome' },
  { prompt: 'Bakery promo with an original jingle', extras: ['song'], keeps: 'bakery' },
  { prompt: 'Travel video about Iceland, voiced with my cloned voice', extras: ['voice_clone'], keeps: 'Iceland' },
  { prompt: 'How to record my voice at home, with a song', extras: ['song'], keeps: 'voice' },
  { prompt: 'The history of the song Yesterday, narrated in my voice', extras: ['voice_clone'], keeps: 'song' },
  { prompt: 'A video about AI images, illustrated with AI-generated visuals', extras: ['ai_visual'], keeps: 'AI images' },
  { prompt: 'Dog grooming tips featuring my product FluffyBrush', extras: ['placement'], keeps: 'dog grooming' },
  { prompt: 'Smoothie recipe video, AI visuals, with a song', extras: ['ai_visual', 'song'], keeps: 'smoothie' },
  { prompt: 'Make a 20 second video about yoga using my voice', extras: ['voice_clone'], keeps: 'yoga' },
  { prompt: 'Sneaker drop announcement — include a catchy song', extras: ['song'], keeps: 'sneaker' },
  { prompt: 'Video about our dental clinic with pictures generated by AI', extras: ['ai_visual'], keeps: 'dental clinic' },
  { prompt: 'Clone my voice and make a video about my coffee shop', extras: ['voice_clone'], keeps: 'coffee shop' },
  { prompt: 'Why whales sing, with a song at the end', extras: ['song'], keeps: 'whales' },
  // Russian
  { prompt: 'Видео о кофейне с песней', extras: ['song'], keeps: 'кофейне' },
  { prompt: 'Добавь песню в ролик про выпускной', extras: ['song'], keeps: 'выпускной' },
  { prompt: 'Ролик про наш салон красоты, озвучь моим голосом', extras: ['voice_clone'], keeps: 'салон красоты' },
  { prompt: 'Видео про рыбалку моим голосом', extras: ['voice_clone'], keeps: 'рыбалку' },
  { prompt: 'Видео о Древнем Египте с ИИ-картинками', extras: ['ai_visual'], keeps: 'Египте' },
  { prompt: 'Ролик про космос, картинки сгенерированные нейросетью', extras: ['ai_visual'], keeps: 'космос' },
  { prompt: 'Видео про новую коллекцию с картинками от нейросети', extras: ['ai_visual'], keeps: 'коллекцию' },
  { prompt: 'История песни «Калинка», озвучка моим голосом', extras: ['voice_clone'], keeps: 'песни' },
  { prompt: 'Как записать свой голос дома, с весёлой песней', extras: ['song'], keeps: 'голос' },
  { prompt: 'Видео о нашей пекарне с оригинальной песней и моим голосом', extras: ['song', 'voice_clone'], keeps: 'пекарне' },
  { prompt: 'Ролик про ИИ-картинки, с нейросетевыми изображениями', extras: ['ai_visual'], keeps: 'ИИ-картинки' },
  { prompt: 'Видео о салоне с моим товаром «Шампунь Лён»', extras: ['placement'], keeps: 'салоне' },
  { prompt: 'Видео про зарядку для детей с песенкой', extras: ['song'], keeps: 'зарядку' },
  { prompt: 'Поздравление мамы с днём рождения моим голосом и с песней', extras: ['voice_clone', 'song'], keeps: 'днём рождения' },
  { prompt: 'Используй нейросетевые картинки: ролик про динозавров', extras: ['ai_visual'], keeps: 'динозавров' },
  { prompt: 'Видео про новый тариф, с клоном моего голоса', extras: ['voice_clone'], keeps: 'тариф' },
  { prompt: 'Ролик о фитнес-клубе, добавь бодрую песню', extras: ['song'], keeps: 'фитнес-клубе' },
  { prompt: 'Сделай видео про Байкал с моим голосом', extras: ['voice_clone'], keeps: 'Байкал' },
];

export const EXTRAS_LABELLED: ExtrasLabelled[] = [...SUBJECT_ONLY, ...ASKING];
