import jsQR from "jsqr";
import { PNG } from "pngjs";
import type { Locator } from "playwright-core";

/** Reads the QR code a locator shows, as a phone camera would: from the rendered pixels. */
export async function scanQr(qr: Locator): Promise<string | null> {
  const png = PNG.sync.read(await qr.screenshot());
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}
