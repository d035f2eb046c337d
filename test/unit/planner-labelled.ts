/**
 * Prompts as people write them, each labelled with what it asks for (written before the planner's rules were tuned
 * to them). Fields not given take the defaults: 30 seconds, neutral tone, the prompt's language, stock music, the
 * standard voice, no AI visuals, captions on.
 */
export interface Labelled {
  prompt: string;
  tone?: 'neutral' | 'funny' | 'energetic' | 'calm' | 'serious';
  duration_seconds?: number;
  language?: 'ru' | 'en';
  music?: 'stock' | 'song' | 'none';
  voice?: 'standard' | 'clone' | 'none';
  ai_visual?: boolean;
  captions?: boolean;
  product?: string;
  cta?: string;
}

export const LABELLED: Labelled[] = [
  // Russian
  { prompt: 'Весёлое видео про котов', tone: 'funny' },
  { prompt: 'весёлый ролик о том как варить кофе', tone: 'funny' },
  { prompt: 'Скидка 50% на зелёный чай до пятницы, весёлое видео с песней', tone: 'funny', music: 'song' },
  { prompt: 'Спокойное видео про утреннюю медитацию, 45 секунд', tone: 'calm', duration_seconds: 45 },
  { prompt: 'Сделай динамичный ролик про кроссовки на 20 секунд', tone: 'energetic', duration_seconds: 20 },
  { prompt: 'Серьёзное видео о налогах для ИП', tone: 'serious' },
  { prompt: 'Видео про йогу на минуту', duration_seconds: 60 },
  { prompt: 'Ролик про осенний лес, 15 секунд, без музыки', duration_seconds: 15, music: 'none' },
  { prompt: 'Рекламный ролик пиццерии с песней и моим голосом', music: 'song', voice: 'clone' },
  { prompt: 'Видео о новой кофейне, без озвучки', voice: 'none' },
  { prompt: 'Короткое видео про собак без субтитров', captions: false },
  { prompt: 'Видео с нейросетевыми картинками про космос', ai_visual: true },
  { prompt: 'Забавный ролик про хомяка, 10 секунд', tone: 'funny', duration_seconds: 10 },
  { prompt: 'Бодрое видео про зарядку на полторы минуты', tone: 'energetic', duration_seconds: 60 },
  { prompt: 'Нужен расслабляющий ролик про море без голоса', tone: 'calm', voice: 'none' },
  { prompt: 'Деловое видео о нашей бухгалтерской компании, 40 секунд', tone: 'serious', duration_seconds: 40 },
  { prompt: 'видос про рыбалку на 25 секунд с песней', duration_seconds: 25, music: 'song' },
  { prompt: 'Сними ролик про ремонт квартиры за минуту', duration_seconds: 60 },
  { prompt: 'Видео про чай на английском', language: 'en' },
  { prompt: 'Ролик о Москве, английский язык, 30 секунд', language: 'en', duration_seconds: 30 },
  { prompt: 'Смешное видео про офис без музыки и без субтитров', tone: 'funny', music: 'none', captions: false },
  { prompt: 'Видео о здоровом питании' },
  { prompt: 'Как выбрать велосипед: спокойное видео на 50 секунд', tone: 'calm', duration_seconds: 50 },
  { prompt: 'Энергичный ролик про фитнес-клуб, призыв к действию: Запишись сегодня', tone: 'energetic', cta: 'Запишись сегодня' },
  { prompt: 'Видео о кофейне с моим продуктом «Утренний бленд»', product: 'Утренний бленд' },
  { prompt: 'Видео про путешествие в Грузию, 20-секундное', duration_seconds: 20 },
  { prompt: 'Ролик на пятнадцать секунд про маникюр', duration_seconds: 15 },
  { prompt: 'Видео про садоводство, сгенерированные нейросетью изображения', ai_visual: true },
  { prompt: 'Ролик про зимнюю рыбалку, озвучь моим голосом', voice: 'clone' },
  { prompt: 'Мотивирующее видео про спорт', tone: 'energetic' },
  { prompt: 'Строгое видео об охране труда без музыки, 30 с', tone: 'serious', music: 'none', duration_seconds: 30 },
  { prompt: 'видео про кошек 10 сек', duration_seconds: 10 },
  { prompt: 'Ролик о бариста, полминуты, весело', tone: 'funny', duration_seconds: 30 },
  { prompt: 'Спокойный ролик для соцсетей о йоге, 1 минута', tone: 'calm', duration_seconds: 60 },
  { prompt: 'Видео о новой коллекции одежды с песней, ИИ-визуал', music: 'song', ai_visual: true },
  { prompt: 'Видео про учёбу в университете, без голоса и без музыки', voice: 'none', music: 'none' },
  { prompt: 'Прикольное видео о нашей доставке еды на 35 секунд', tone: 'funny', duration_seconds: 35 },
  { prompt: 'Информационное видео о прививках' },
  { prompt: 'Видео о походе в горы на русском языке, 40 секунд', language: 'ru', duration_seconds: 40 },
  { prompt: 'Сделай видео про iPhone на английском, с песней', language: 'en', music: 'song' },
  { prompt: 'Драйвовый ролик про мотоциклы, 2 минуты', tone: 'energetic', duration_seconds: 60 },
  { prompt: 'Умиротворяющее видео о закате, без субтитров', tone: 'calm', captions: false },
  // English
  { prompt: 'Funny video about cats', tone: 'funny' },
  { prompt: 'A hilarious 20 second clip about office life', tone: 'funny', duration_seconds: 20 },
  { prompt: 'Make a calm video about morning meditation, 45 seconds', tone: 'calm', duration_seconds: 45 },
  { prompt: 'Energetic promo for our sneaker store with a song', tone: 'energetic', music: 'song' },
  { prompt: 'Serious explainer about income taxes for freelancers', tone: 'serious' },
  { prompt: 'Half a minute video about yoga', duration_seconds: 30 },
  { prompt: 'A one minute video about baking bread', duration_seconds: 60 },
  { prompt: 'Video about autumn forest, 15 seconds, no music', duration_seconds: 15, music: 'none' },
  { prompt: 'Pizza restaurant ad with a song in my own voice', music: 'song', voice: 'clone' },
  { prompt: 'Video about our new coffee shop, no voiceover', voice: 'none' },
  { prompt: 'Short video about dogs without captions', captions: false },
  { prompt: 'Space video with AI-generated images', ai_visual: true },
  { prompt: 'Upbeat 30-second reel about morning runs', tone: 'energetic', duration_seconds: 30 },
  { prompt: 'Playful clip about hamsters, 10s', tone: 'funny', duration_seconds: 10 },
  { prompt: 'Relaxing video about the sea without narration', tone: 'calm', voice: 'none' },
  { prompt: 'Professional video about our accounting firm, 40 sec', tone: 'serious', duration_seconds: 40 },
  { prompt: 'fishing video 25 seconds with a jingle', duration_seconds: 25, music: 'song' },
  { prompt: 'Home renovation tips in a minute', duration_seconds: 60 },
  { prompt: 'Video about tea in Russian', language: 'ru' },
  { prompt: 'Moscow city guide, russian language, 30 seconds', language: 'ru', duration_seconds: 30 },
  { prompt: 'Funny office video with no music and no subtitles', tone: 'funny', music: 'none', captions: false },
  { prompt: 'Healthy eating tips' },
  { prompt: 'How to choose a bicycle: calm video, 50 seconds', tone: 'calm', duration_seconds: 50 },
  { prompt: 'Dynamic gym promo, call to action: Join today', tone: 'energetic', cta: 'Join today' },
  { prompt: 'Coffee shop video featuring my product Morning Blend', product: 'Morning Blend' },
  { prompt: 'A 20-second travel video about Georgia', duration_seconds: 20 },
  { prompt: 'Fifteen second clip about nail art', duration_seconds: 15 },
  { prompt: 'Gardening video with AI visuals', ai_visual: true },
  { prompt: 'Winter fishing video, clone my voice', voice: 'clone' },
  { prompt: 'Motivational video about sports', tone: 'energetic' },
  { prompt: 'Formal video about workplace safety, no music, 30s', tone: 'serious', music: 'none', duration_seconds: 30 },
  { prompt: 'cats video 10 sec', duration_seconds: 10 },
  { prompt: 'Barista video, half a minute, make it fun', tone: 'funny', duration_seconds: 30 },
  { prompt: 'Chill video about yoga, 1 minute', tone: 'calm', duration_seconds: 60 },
  { prompt: 'New clothing collection video with a song and AI generated visuals', music: 'song', ai_visual: true },
  { prompt: 'University life video, no voice and no music', voice: 'none', music: 'none' },
  { prompt: 'Witty 35 second video about our food delivery', tone: 'funny', duration_seconds: 35 },
  { prompt: 'Informative video about vaccines' },
  { prompt: 'Mountain hiking video in English, 40 seconds', language: 'en', duration_seconds: 40 },
  { prompt: 'Video about the new iPhone in Russian with a song', language: 'ru', music: 'song' },
  { prompt: 'Hype video about motorcycles, 2 minutes', tone: 'energetic', duration_seconds: 60 },
  { prompt: 'Soothing sunset video without subtitles', tone: 'calm', captions: false },
];
