/**
 * The taxpayer number (ИНН) and its check digits, as the tax service computes them: 10 digits for
 * a company (one check digit), 12 for an individual or an individual entrepreneur (two). A typo
 * is caught here, before a register refuses every receipt that carries it.
 */
const WEIGHTS_10 = [2, 4, 10, 3, 5, 9, 4, 6, 8];
const WEIGHTS_11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const WEIGHTS_12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];

const checkDigit = (digits: number[], weights: number[]) => (weights.reduce((s, w, i) => s + w * digits[i]!, 0) % 11) % 10;

export function isValidInn(inn: string): boolean {
  if (!/^(\d{10}|\d{12})$/.test(inn)) return false;
  const d = [...inn].map(Number);
  if (d.length === 10) return checkDigit(d, WEIGHTS_10) === d[9];
  return checkDigit(d, WEIGHTS_11) === d[10] && checkDigit(d, WEIGHTS_12) === d[11];
}
