import { createLogger } from '@homeops/common';
import { YamlNotificationRepository } from './adapters/storage/yaml-notification.repository.js';
import { attachmentDirOf, pgRepositoryOf } from './build-storage.js';
import { readConfig } from './config.js';
import { copyHistory } from './domain/copy-history.js';

// `node dist/import-history.js`: copies the YAML history at STORAGE_PATH into the PostgreSQL database at STORAGE_URL,
// with the service stopped (the YAML file's lock says so otherwise). Run again after an interruption: what is there is skipped.
const config = readConfig();
const logger = createLogger({ service: 'notifications-import', level: config.LOG_LEVEL });

async function importHistory(url: string): Promise<number> {
  const source = new YamlNotificationRepository(config.STORAGE_PATH, { log: (level, message) => logger[level]({ path: config.STORAGE_PATH }, message) });
  // It sends nothing: a pending delivery it copies is free for the service's instances at its planned time.
  const target = pgRepositoryOf(config, url, (level, message) => logger[level](message), { leaseMs: 0 });
  try {
    await source.open();
    await target.open();
    const total = (await source.recipients()).reduce((sum, r) => sum + r.total, 0);
    logger.info({ from: config.STORAGE_PATH, total }, 'copying the history into PostgreSQL');
    let logged = 0;
    const report = await copyHistory(source, target, (r) => {
      if (r.copied + r.skipped - logged < 50_000) return;
      logged = r.copied + r.skipped;
      logger.info({ done: logged, total }, 'copying');
    });
    const attachments = config.ATTACHMENTS_DIR ?? attachmentDirOf(config.STORAGE_PATH);
    logger.info(
      { ...report, total, attachments },
      `copied ${report.copied}, already there ${report.skipped}, of ${total}. Attachment files stay where they are: run the service with ATTACHMENTS_DIR=${attachments}`,
    );
    return 0;
  } catch (err) {
    logger.fatal({ err }, `the history could not be copied: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await source.close().catch(() => undefined);
    await target.close().catch(() => undefined);
  }
}

if (config.STORAGE_URL === undefined) {
  logger.fatal('set STORAGE_URL (or DATABASE_URL) to the postgres:// URL to copy the history into');
  process.exitCode = 2;
} else {
  process.exitCode = await importHistory(config.STORAGE_URL);
}
logger.flush?.();
