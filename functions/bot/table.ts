/** The bot's entries: functions no route leads to, which only IAM principals (the bot's role) may invoke. */
export const BOT_FUNCTIONS = ['place-order'] as const;
