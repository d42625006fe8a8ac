/**
 * App Store genre ids a top chart can be narrowed to: the app genres (6000–6027) and the games'
 * sub-genres (7001–7019), as Apple numbers them (iTunes genre ids, listed by app-store-scraper's
 * `constants.js` and Apple's genre service). A chart of an unknown genre is refused before any charge.
 */
const APP_GENRES = [
  6000, 6001, 6002, 6003, 6004, 6005, 6006, 6007, 6008, 6009, 6010, 6011, 6012, 6013, 6014, 6015, 6016, 6017, 6018,
  6020, 6021, 6022, 6023, 6024, 6025, 6026, 6027,
];
/** 7010 is not a genre: Apple's game sub-genres skip it. */
const GAME_GENRES = [
  7001, 7002, 7003, 7004, 7005, 7006, 7007, 7008, 7009, 7011, 7012, 7013, 7014, 7015, 7016, 7017, 7018, 7019,
];

export const CHART_GENRE_IDS: readonly string[] = [...APP_GENRES, ...GAME_GENRES].map(String);
