/**
 * A payload (an SBP link, a TOTP enrolment URI) as an inline SVG QR code; medium error correction
 * survives screen glare, and inline SVG needs nothing from the pages' CSP. The encoder is loaded at
 * the first code drawn, not at start (docs/performance.md, "Memory").
 */
export async function qrSvg(payload: string): Promise<string> {
  const { default: QRCode } = await import("qrcode");
  return QRCode.toString(payload, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
}
