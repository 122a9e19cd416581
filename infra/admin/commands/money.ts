import type { Command } from "../cli.ts";

export const moneyCommands: Record<string, Command> = {};
