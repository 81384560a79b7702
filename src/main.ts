// Entry point: configuration → server → graceful shutdown on SIGINT/SIGTERM (a second signal forces exit).
import { ConfigError, HelpRequested, loadConfig, redactConfig } from './config.js';
import { createApp } from './app.js';
import { createLogger } from './util/logger.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(`${error.usage}\n`);
      process.exit(error.exitCode);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    throw error;
  }

  const logger = createLogger({ level: config.logLevel });
  logger.debug({ config: redactConfig(config) }, 'configuration');
  if (config.adminCredentialsDefaulted) {
    logger.warn(
      '!!! ADMIN CREDENTIALS ARE THE DEFAULTS (admin/admin). Anyone who can reach this server can administer it. ' +
        'Set --admin-username/--admin-password or ADMIN_USERNAME/ADMIN_PASSWORD. !!!',
    );
  }

  const app = await createApp(config, logger);
  logger.info({ baseUrl: app.baseUrl }, `listening on http://${config.host}:${app.port}`);

  let signals = 0;
  const shutdown = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'shutting down (send the signal again to force)');
    app.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
