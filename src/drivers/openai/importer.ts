/**
 * How the `openai` package is imported (a test passes one that fails). Its own module, typed
 * without `openai`'s types: the driver's public declarations must compile where the optional
 * package is not installed.
 */
export type OpenAIImporter = () => Promise<unknown>;
