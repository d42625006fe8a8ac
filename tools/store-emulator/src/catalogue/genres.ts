/** App Store genres with Apple's genre ids (games carry a sub-genre as their first genre). */
export interface Genre {
  id: number;
  name: string;
  /** For games: the parent genre, listed after the sub-genre as Apple does. */
  parent?: Genre;
  /** Used in generated English descriptions: "... lets you {activity}". */
  activity: string;
}

const games: Genre = { id: 6014, name: 'Games', activity: 'play games' };

function game(id: number, name: string, activity: string): Genre {
  return { id, name, parent: games, activity };
}

export const GENRES = {
  board: game(7004, 'Board', 'play chess, checkers and other board games against friends or the computer'),
  puzzle: game(7012, 'Puzzle', 'solve relaxing puzzles and train your brain'),
  card: game(7005, 'Card', 'play classic card games offline'),
  racing: game(7013, 'Racing', 'race against players from around the world'),
  strategy: game(7017, 'Strategy', 'build your empire and plan every move'),
  word: game(7019, 'Word', 'find words and grow your vocabulary'),
  weather: { id: 6001, name: 'Weather', activity: 'check the forecast, radar and storm alerts' },
  productivity: { id: 6007, name: 'Productivity', activity: 'organise notes, tasks and documents' },
  finance: { id: 6015, name: 'Finance', activity: 'track your budget, spending and savings' },
  photo: { id: 6008, name: 'Photo & Video', activity: 'edit photos and videos with filters and effects' },
  fitness: { id: 6013, name: 'Health & Fitness', activity: 'work out, sleep better and track your health' },
  education: { id: 6017, name: 'Education', activity: 'learn languages, maths and music step by step' },
  music: { id: 6011, name: 'Music', activity: 'listen to radio, tune instruments and make music' },
  navigation: { id: 6010, name: 'Navigation', activity: 'find your way with maps and public transport' },
  food: { id: 6023, name: 'Food & Drink', activity: 'cook recipes and plan your meals' },
  travel: { id: 6003, name: 'Travel', activity: 'book trips, flights and rides' },
  social: { id: 6005, name: 'Social Networking', activity: 'chat and share moments with friends' },
  utilities: { id: 6002, name: 'Utilities', activity: 'scan, translate and calculate in a tap' },
  shopping: { id: 6024, name: 'Shopping', activity: 'find deals and shop smarter' },
  sports: { id: 6004, name: 'Sports', activity: 'follow scores, results and your favourite teams' },
  news: { id: 6009, name: 'News', activity: 'read the headlines that matter to you' },
  books: { id: 6018, name: 'Books', activity: 'read books, stories and comics' },
  business: { id: 6000, name: 'Business', activity: 'manage your business and your ads' },
} satisfies Record<string, Genre>;

export type GenreKey = keyof typeof GENRES;

/** Genre names as Apple lists them on a record: sub-genre first, then its parent. */
export function genreNames(genre: Genre, secondary?: Genre): string[] {
  const names = genre.parent ? [genre.name, genre.parent.name] : [genre.name];
  if (secondary && !names.includes(secondary.name)) names.push(secondary.name);
  return names;
}

export function genreIds(genre: Genre, secondary?: Genre): string[] {
  const ids = genre.parent ? [genre.id, genre.parent.id] : [genre.id];
  if (secondary && !ids.includes(secondary.id)) ids.push(secondary.id);
  return ids.map(String);
}
