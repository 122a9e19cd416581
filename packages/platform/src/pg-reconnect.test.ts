import { describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { reconnectingClient } from "./pg-reconnect.ts";

/**
 * The retry's decision at the one moment a real server cannot be made to fail on cue (between the
 * end of a transaction's body and its COMMIT's answer): a driver double that fails there. The
 * real-server cases are in database.test.ts.
 */
const sessionEnded = () => Object.assign(new Error("terminating connection due to administrator command"), { code: "ERR_POSTGRES_SERVER_ERROR", errno: "57P01" });

/** A driver whose first `commitFailures` COMMITs fail as a session ended by the server does. */
function driver(commitFailures: number) {
  let failed = 0;
  const client = {
    begin: async (body: (tx: unknown) => Promise<unknown>) => {
      const value = await body({});
      if (failed++ < commitFailures) throw sessionEnded();
      return value;
    },
  };
  return reconnectingClient(client as unknown as SQL, 3);
}

describe("reconnectingClient: which transactions run again", () => {
  test("the session ended after the body returned (its COMMIT sent): not run again, the caller gets the error", async () => {
    let runs = 0;
    const outcome = await driver(1)
      .begin(async () => void runs++)
      .catch((e: unknown) => e);
    expect(outcome).toMatchObject({ errno: "57P01" });
    expect(runs).toBe(1);
  });

  test("the session ended before the body returned: run again, at most pool size + 1 times", async () => {
    let runs = 0;
    const body = async () => {
      runs++;
      // A statement of the body fails: the server ended the session while it ran.
      throw sessionEnded();
    };
    expect(await driver(0).begin(body).catch((e: unknown) => e)).toMatchObject({ errno: "57P01" });
    expect(runs).toBe(4);
  });
});
