/**
 * What an openai() thread keeps in the thread store: its provider state document (the thread's
 * conversations), read straight from the store the way another host would.
 */
import type { ThreadStore } from "../../../src/thread/store.js";
import type { ConversationFile } from "../../../src/drivers/openai/conversation.js";
import type { ThreadConversationsDocument } from "../../../src/drivers/openai/conversation-store.js";

/** The thread's provider state as stored: its JSON text. */
export async function storedStateText(store: ThreadStore, threadId: string): Promise<string> {
  const text = await store.loadProviderState!(threadId);
  if (text === undefined) throw new Error(`thread ${threadId} has no provider state`);
  return text;
}

/** The thread's conversations document. */
export async function storedConversations(store: ThreadStore, threadId: string): Promise<ThreadConversationsDocument> {
  return JSON.parse(await storedStateText(store, threadId)) as ThreadConversationsDocument;
}

/** One conversation of the thread's document, by session id. */
export async function storedConversation(store: ThreadStore, threadId: string, id: string): Promise<ConversationFile> {
  const found = (await storedConversations(store, threadId)).conversations.find((c) => c.id === id);
  if (found === undefined) throw new Error(`thread ${threadId} keeps no conversation ${id}`);
  return found;
}
