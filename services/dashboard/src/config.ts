import { commonEnv, flag, port } from "@payaccept/platform";

export const dashboardEnv = {
  ...commonEnv,
  DASHBOARD_PORT: port(3002),
  /** Accept http and private/loopback webhook URLs for every shop (development and test stacks only). */
  WEBHOOK_ALLOW_PRIVATE: flag(false),
};
