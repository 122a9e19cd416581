import QRCode from "qrcode";

/**
 * A payload (an SBP link, a TOTP enrolment URI) as an inline SVG QR code; medium error correction
 * survives screen glare, and inline SVG needs nothing from the pages' CSP.
 */
export const qrSvg = (payload: string): Promise<string> => QRCode.toString(payload, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
