/**
 * The three agents that speak the OpenAI-compatible Chat Completions API (OpenCode, Qwen Code,
 * GitHub Copilot CLI), each set up against the one fake of that API (fakes/chat.ts), with its
 * configuration in the run's temp HOME. Their test files share these setups with the
 * `patchwork acp` cases.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHAT_MODEL, startFakeChat } from "./fakes/chat.js";
import type { AgentSetup } from "./harness.js";

/** OpenCode: a provider `fake` (`@ai-sdk/openai-compatible`, bundled with OpenCode) in the file OPENCODE_CONFIG names. */
export const opencode: AgentSetup = {
  name: "opencode",
  agent: "opencode",
  startFake: startFakeChat,
  env(fake, dirs) {
    const config = {
      $schema: "https://opencode.ai/config.json",
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          name: "Fake",
          options: { baseURL: `${fake.url}/v1`, apiKey: "sk-fake" },
          models: { [CHAT_MODEL]: { name: "Fake model" } },
        },
      },
      model: `fake/${CHAT_MODEL}`,
      small_model: `fake/${CHAT_MODEL}`,
      autoupdate: false,
      share: "disabled",
    };
    const file = join(dirs.home, "opencode.json");
    writeFileSync(file, JSON.stringify(config, null, 2));
    return {
      OPENCODE_CONFIG: file,
      OPENCODE_DISABLE_AUTOUPDATE: "true",
      OPENCODE_DISABLE_MODELS_FETCH: "true",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "true",
      OPENCODE_DISABLE_SHARE: "true",
    };
  },
};

/**
 * Qwen Code: OPENAI_BASE_URL/OPENAI_API_KEY/OPENAI_MODEL and `openai` auth in its settings.
 * Nothing about our tool, follow-up suggestions or memory: the preset's system defaults see to
 * them (packages/cli/src/qwen-defaults.ts).
 */
export const qwen: AgentSetup = {
  name: "qwen",
  agent: "qwen",
  startFake: startFakeChat,
  env(fake, dirs) {
    mkdirSync(join(dirs.home, ".qwen"), { recursive: true });
    const settings = {
      security: { auth: { selectedType: "openai" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    writeFileSync(join(dirs.home, ".qwen", "settings.json"), JSON.stringify(settings, null, 2));
    return { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: "sk-fake", OPENAI_MODEL: CHAT_MODEL };
  },
};

/** GitHub Copilot CLI: offline, its provider the fake (COPILOT_PROVIDER_*), its home in the temp HOME. */
export const copilot: AgentSetup = {
  name: "copilot",
  agent: "copilot",
  startFake: startFakeChat,
  env(fake, dirs) {
    const home = join(dirs.home, ".copilot");
    mkdirSync(home, { recursive: true });
    return {
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${fake.url}/v1`,
      COPILOT_PROVIDER_API_KEY: "sk-fake",
      COPILOT_MODEL: CHAT_MODEL,
      COPILOT_HOME: home,
    };
  },
};
