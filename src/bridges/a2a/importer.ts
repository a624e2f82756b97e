/**
 * How `@a2a-js/sdk` is imported (a test passes one that fails). Its own module, typed without the
 * SDK's types: the bridge's public declarations must compile where the optional package is not
 * installed.
 */
export type A2ASdkImporter = () => Promise<unknown>;
