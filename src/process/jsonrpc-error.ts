/**
 * The error a JSON-RPC peer answered with. Kept separate from transport failures
 * (`ProtocolError`) so callers can tell "the provider said no" from "the pipe broke".
 */
import { AdaptorError } from "../errors/index.js";

/** Error codes reserved by JSON-RPC 2.0. */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** A JSON-RPC error response, received from the peer or thrown by a request handler to send one. */
export class JsonRpcError extends AdaptorError {
  /** The numeric JSON-RPC `error.code`. */
  readonly rpcCode: number;
  /** The JSON-RPC `error.data`, as sent. */
  readonly data: unknown;

  constructor(rpcCode: number, message: string, data?: unknown) {
    super("jsonrpc_error", message);
    this.rpcCode = rpcCode;
    this.data = data;
  }

  /** The error for a method this side does not implement (-32601). */
  static methodNotFound(method: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `method not found: ${method}`);
  }
}
