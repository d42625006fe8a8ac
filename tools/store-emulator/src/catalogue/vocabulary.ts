import type { GenreKey } from './genres.js';

/**
 * Word lists for generated names. Scripts are mixed on purpose: the gateway and the catalog must pass
 * Japanese, Cyrillic, Arabic and emoji through untouched, and search must find them when the term is
 * percent-encoded.
 */
export type Script = 'latin' | 'japanese' | 'cyrillic' | 'arabic';

export const LATIN_ADJECTIVES = [
  'Super', 'Pocket', 'Smart', 'Daily', 'Tiny', 'Happy', 'Quick', 'Magic', 'Epic', 'Zen', 'Bright', 'Simple', 'Royal',
  'Wild', 'Cosmic', 'Pixel', 'Golden', 'Urban', 'Little', 'Mega', 'Clever', 'Swift', 'Lucky', 'Brave', 'Calm', 'Cozy',
  'Neon', 'Retro', 'Ultra', 'Easy',
];

export const LATIN_SUFFIXES = ['', '', '', '', ' Pro', ' HD', ' Lite', ' 2', ' Plus', ': Classic', ' Online', ' Master', ' & Friends', ' Deluxe'];

/** Nouns per genre, in each script. */
export const NOUNS: Record<Script, Partial<Record<GenreKey, string[]>>> = {
  latin: {
    board: ['Chess', 'Checkers', 'Backgammon', 'Go', 'Mahjong', 'Dominoes'],
    puzzle: ['Puzzle', 'Sudoku', 'Crossword', 'Blocks', 'Jigsaw', 'Match 3'],
    card: ['Solitaire', 'Poker', 'Blackjack', 'Spades', 'Rummy'],
    racing: ['Racing', 'Kart', 'Drift', 'Moto'],
    strategy: ['Kingdom', 'Empire', 'Tower Defense', 'Tactics'],
    word: ['Word Search', 'Anagrams', 'Letters', 'Word Connect'],
    weather: ['Weather', 'Radar', 'Forecast'],
    productivity: ['Notes', 'Tasks', 'Calendar', 'Planner', 'Scanner', 'Docs'],
    finance: ['Budget', 'Wallet', 'Expenses', 'Stocks', 'Banking'],
    photo: ['Photo', 'Camera', 'Collage', 'Video Editor', 'Filters'],
    fitness: ['Fitness', 'Yoga', 'Running', 'Sleep', 'Meditation', 'Workout'],
    education: ['Language', 'Math', 'Flashcards', 'ABC Kids', 'Piano Lessons'],
    music: ['Radio', 'Piano', 'Guitar Tuner', 'Metronome', 'Drum Pad'],
    navigation: ['Maps', 'Transit', 'Compass', 'Parking'],
    food: ['Recipes', 'Coffee', 'Pizza', 'Meal Planner'],
    travel: ['Travel', 'Flights', 'Hotels', 'Taxi'],
    social: ['Chat', 'Dating', 'Friends', 'Stories'],
    utilities: ['Flashlight', 'VPN', 'Calculator', 'QR Reader', 'Translator'],
    shopping: ['Shop', 'Deals', 'Coupons'],
    sports: ['Golf', 'Soccer', 'Tennis Scores', 'Cricket'],
    news: ['News', 'Headlines'],
    books: ['Books', 'Comics', 'Audiobooks'],
  },
  japanese: {
    board: ['チェス', '将棋', '囲碁', '麻雀'],
    puzzle: ['パズル', '数独', 'ナンプレ'],
    card: ['トランプ', '花札'],
    weather: ['天気', '雨雲レーダー'],
    productivity: ['メモ帳', 'カレンダー', 'スキャナー'],
    finance: ['家計簿', '株価'],
    photo: ['写真加工', 'カメラ'],
    fitness: ['筋トレ', '歩数計', '睡眠'],
    education: ['英会話', '漢字クイズ', '算数'],
    navigation: ['乗換案内', '地図'],
    food: ['料理レシピ', '献立'],
    news: ['ニュース'],
    books: ['マンガ', '小説'],
  },
  cyrillic: {
    board: ['Шахматы', 'Шашки', 'Нарды'],
    puzzle: ['Пазлы', 'Судоку'],
    card: ['Пасьянс', 'Дурак'],
    weather: ['Погода', 'Радар осадков'],
    productivity: ['Заметки', 'Календарь'],
    finance: ['Бюджет', 'Мой банк'],
    navigation: ['Карты', 'Транспорт'],
    travel: ['Такси', 'Билеты'],
    food: ['Рецепты'],
    fitness: ['Фитнес', 'Шагомер'],
    news: ['Новости'],
    books: ['Книги'],
    utilities: ['Переводчик', 'Калькулятор'],
    music: ['Радио'],
  },
  arabic: {
    board: ['الشطرنج', 'الدومينو'],
    puzzle: ['ألغاز', 'سودوكو'],
    weather: ['الطقس'],
    productivity: ['ملاحظات', 'التقويم'],
    finance: ['ميزانية'],
    navigation: ['خرائط'],
    food: ['وصفات الطبخ'],
    news: ['الأخبار'],
    books: ['القرآن الكريم', 'قصص'],
    utilities: ['ترجمة', 'الآلة الحاسبة'],
    fitness: ['لياقة'],
  },
};

export const JAPANESE_PREFIXES = ['', '', 'かんたん', 'みんなの', 'ポケット', '毎日'];
export const JAPANESE_SUFFIXES = ['', 'アプリ', 'プロ', 'マスター', 'ナビ', '帳'];
export const CYRILLIC_SUFFIXES = ['', '', ' Про', ' Онлайн', ' Лайт', ' 24', ': Классика'];
export const ARABIC_SUFFIXES = ['', '', ' برو', ' لايت', ' بلس'];

/** Emoji decorating some Latin names, per genre. */
export const EMOJI: Partial<Record<GenreKey, string>> = {
  board: '♟️', puzzle: '🧩', card: '🃏', racing: '🏎️', strategy: '🏰', word: '🔤', weather: '🌤️', productivity: '📝',
  finance: '💰', photo: '📷', fitness: '💪', education: '🎓', music: '🎵', navigation: '🗺️', food: '🍳', travel: '✈️',
  social: '💬', utilities: '🔧', shopping: '🛍️', sports: '⚽', news: '📰', books: '📚',
};

export const COMPANY_WORDS = [
  'Blue', 'Maple', 'Orbit', 'Falcon', 'Nimbus', 'Pine', 'Harbor', 'Summit', 'Coral', 'Atlas', 'Ember', 'Lumen', 'Quartz',
  'Willow', 'Cobalt', 'Meadow', 'Vertex', 'Aurora', 'Granite', 'Juniper', 'Nova', 'Polar', 'Riverside', 'Saffron',
  'Tidal', 'Velvet', 'Zephyr', 'Beacon', 'Cedar', 'Delta', 'Echo', 'Fable', 'Glacier', 'Horizon', 'Ivory', 'Kestrel',
];
export const COMPANY_KINDS = ['Studios', 'Labs', 'Games', 'Software', 'Apps', 'Inc.', 'LLC', 'GmbH', 'Ltd', 'Interactive', 'Media', 'SAS', 'Ltda.'];
export const PERSON_FIRST = ['Anna', 'Lukas', 'Sofia', 'Mateo', 'Emma', 'Noah', 'Léa', 'Hugo', 'Olivia', 'João', 'Mia', 'Felix', 'Chloé', 'Pedro'];
export const PERSON_LAST = ['Schmidt', 'Martin', 'Silva', 'Johnson', 'Dubois', 'Müller', 'Santos', 'Brown', 'Bernard', 'Weber', 'Costa', 'Taylor'];
export const JAPANESE_COMPANY_PARTS = [
  ['株式会社', '合同会社'],
  ['さくら', 'ひかり', 'みらい', 'あおば', 'つばさ', 'ことば', 'はやて', 'かえで', 'すばる', 'なぎさ'],
  ['ソフト', 'ゲームス', 'ラボ', 'スタジオ', ''],
];
export const CYRILLIC_COMPANY_PARTS = [
  ['ООО «'],
  ['Север', 'Белка', 'Кедр', 'Волга', 'Радуга', 'Сокол', 'Ладья', 'Заря', 'Полюс', 'Байкал'],
  ['софт»', ' Геймс»', ' Аппс»', ' Лаб»', '»'],
];
export const ARABIC_COMPANY_PARTS = [
  ['شركة ', 'مؤسسة '],
  ['النخيل', 'الأفق', 'الواحة', 'القمر', 'الصقر', 'المنارة'],
  [' للبرمجيات', ' الرقمية', ' للتطبيقات', ''],
];

export const BUNDLE_WORDS = ['Essentials', 'Collection', 'Pack', 'Bundle', 'Suite', 'Complete'];
