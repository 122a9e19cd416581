import { setDefaultTimeout } from "bun:test";
import { connectorConformance } from "./connectors/conformance.ts";
import { emulatorDriver } from "./connectors/emulator-driver.ts";
import { tbankDriver } from "./connectors/tbank-driver.ts";

// The emulator is a real process; bounded all the same.
setDefaultTimeout(60_000);

/** Every connector of the registry passes the same suite (docs/connectors.md, "Conformance"). */
connectorConformance(emulatorDriver());
connectorConformance(tbankDriver());
