/**
 * Test support (database.test.ts): a process that opens the PGlite data folder given as its
 * argument, migrates it, prints `open` and keeps it open until it is killed.
 */
import { openDatabase } from '../../src/core/db/database';

const database = await openDatabase({ dataDir: process.argv[2]! });
await database.migrate();
process.stdout.write('open\n');
setInterval(() => {}, 60_000);
