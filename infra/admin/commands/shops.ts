import type { Command } from "../cli.ts";

export const shopCommands: Record<string, Command> = {};
