/** The kit's claimable standby: claimed once, by its owner only, and only while its process lives. */
import { describe, expect, it } from "vitest";

import { ClaimableStandby } from "../../../src/driver/kit/standby.js";
import { NodeConnection } from "./helpers.js";

describe("ClaimableStandby", () => {
  it("hands its connection to the first claim of its owner, and to nobody after", async () => {
    const connection = await NodeConnection.start();
    const owner = {};
    const standby = new ClaimableStandby(connection, owner);
    try {
      expect(standby.pid).toBe(connection.pid);
      expect(standby.isAlive()).toBe(true);
      expect(standby.claim({})).toBeUndefined();
      expect(standby.claimed).toBe(false);
      expect(standby.claim(owner)).toBe(connection);
      expect(standby.claimed).toBe(true);
      expect(standby.claim(owner)).toBeUndefined();
    } finally {
      await standby.close();
    }
    expect(standby.isAlive()).toBe(false);
  });

  it("is not claimable once its process is gone", async () => {
    const owner = {};
    const standby = new ClaimableStandby(await NodeConnection.start(), owner);
    await standby.close();
    expect(standby.isAlive()).toBe(false);
    expect(standby.claim(owner)).toBeUndefined();
    expect(standby.ownedBy(owner)).toBe(true);
  });
});
