/** A real child process behind the kit's connection base, and a deferred, for the kit's tests. */
import { ProcessConnection, spawnLaunch } from "../../../src/driver/kit/connection.js";
import { createRedactor } from "../../../src/redact/redact.js";

/** A `node` child that lives until its input ends. */
export class NodeConnection extends ProcessConnection {
  exits = 0;

  static async start(onSpawn?: (connection: NodeConnection) => void): Promise<NodeConnection> {
    const proc = await spawnLaunch({
      command: process.execPath,
      args: ["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));"],
      cwd: process.cwd(),
      env: {},
      inheritEnv: [],
      redactor: createRedactor(),
    });
    const connection = new NodeConnection(proc);
    onSpawn?.(connection);
    return connection;
  }

  protected override onExit(): void {
    this.exits++;
  }

  protected async shutdown(): Promise<void> {
    this.process.stdin.end();
    await this.process.exited;
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
