import type { Command } from "../cli.ts";

export const webhookCommands: Record<string, Command> = {};
