/**
 * The environment of each real agent of the suite (its fake model API, its config files in the
 * run's temp HOME), shared by the agent's own test file and the tests that start it directly
 * (skills.test.ts, plugin.test.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "./fakes/anthropic.js";
import { startFakeGemini } from "./fakes/gemini.js";
import { startFakeOpenAI } from "./fakes/openai.js";
import type { AgentSetup } from "./harness.js";

/** Claude Code's environment: the fake API, a config dir in the temp HOME, no outside traffic. Root needs nothing more. */
export const claude: AgentSetup = {
  name: "claude",
  agent: "claude",
  startFake: startFakeAnthropic,
  env: (fake, dirs) => ({
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-fake",
    CLAUDE_CONFIG_DIR: join(dirs.home, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  }),
};

export const CODEX_MODEL = "gpt-fake";

export const codex: AgentSetup = {
  name: "codex",
  agent: "codex",
  startFake: startFakeOpenAI,
  env(fake, dirs) {
    const codexHome = join(dirs.home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    const config = [
      `model = "${CODEX_MODEL}"`,
      `model_provider = "fake"`,
      ``,
      `[model_providers.fake]`,
      `name = "fake"`,
      `base_url = "${fake.url}/v1"`,
      `env_key = "OPENAI_API_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
    ];
    writeFileSync(join(codexHome, "config.toml"), `${config.join("\n")}\n`);
    return { CODEX_HOME: codexHome, OPENAI_API_KEY: "sk-fake" };
  },
};

/**
 * Gemini CLI's environment: the fake API and an API key, its settings in the temp HOME
 * (API-key auth, no telemetry, no usage statistics, no update checks).
 */
export const gemini: AgentSetup = {
  name: "gemini",
  agent: "gemini",
  startFake: startFakeGemini,
  env(fake, dirs) {
    mkdirSync(join(dirs.home, ".gemini"), { recursive: true });
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    writeFileSync(join(dirs.home, ".gemini", "settings.json"), JSON.stringify(settings));
    return { GEMINI_API_KEY: "fake-key", GOOGLE_GEMINI_BASE_URL: fake.url };
  },
};
