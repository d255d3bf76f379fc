/**
 * A setting, or what it names, that keeps Sendline from starting: printed without a stack, exit
 * code 2. Apart from config.ts so that db/ and secrets/ can throw it without reaching the settings.
 */
export class ConfigError extends Error {}
