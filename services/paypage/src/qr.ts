import QRCode from "qrcode";

/** The SBP payload as an inline SVG QR code (medium error correction survives screen glare). */
export const qrSvg = (payload: string): Promise<string> => QRCode.toString(payload, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
