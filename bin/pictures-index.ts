/**
 * npm run pictures:index: builds functions/generator/pictures-index.json, the picture library's index, from the
 * installed packages (emojibase-data, @twemoji/svg) and the matching rules of pictures.ts. Run it after changing
 * either; test/generator/pictures.test.ts fails while the file differs from a fresh build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLibraryIndex } from '../functions/generator/pictures.ts';
import { ROOT } from '../lib/paths.ts';

const index = buildLibraryIndex();
const file = join(ROOT, 'functions', 'generator', 'pictures-index.json');
writeFileSync(file, `${JSON.stringify(index)}\n`);
console.log(`${file}: ${Object.keys(index.entries).length} pictures, ${Object.keys(index.stems).length} stems`);
