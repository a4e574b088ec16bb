// Which model a sub-agent runs on. auto (the default): the client's own through sampling
// when it can sample, else the Anthropic API when a key is configured; sampling or
// anthropic: only that one. When there is none, the answer says what to configure.
import type { Era } from '../protocol/era.js';
import type { InputOrigin } from '../child/child-types.js';
import { AnthropicModel, type AnthropicSettings } from './anthropic-model.js';
import type { ModelSource } from './model-source.js';
import { SamplingModel, samplingSupport } from './sampling-model.js';

export type AgentProvider = 'auto' | 'sampling' | 'anthropic';

export interface ModelChoiceOptions {
  provider: AgentProvider;
  /** Set when an API key is configured (ANTHROPIC_API_KEY). */
  anthropic?: AnthropicSettings | undefined;
}

const CONFIGURE_API =
  "set ANTHROPIC_API_KEY in mcpmux's environment (or start it with --agent-provider anthropic and the key) to run the sub-agent on the Anthropic API";

export class ModelChoice {
  readonly #options: ModelChoiceOptions;
  readonly #anthropic: AnthropicModel | undefined;

  constructor(options: ModelChoiceOptions) {
    this.#options = options;
    this.#anthropic = options.anthropic && new AnthropicModel(options.anthropic);
  }

  /**
   * The model for a client that `origin` reaches, or why there is none. `origin` is
   * undefined where the client cannot be asked: a 2026-07-28 client outside of its own
   * call of agent (its questions travel only as input_required rounds of that call).
   */
  for(origin: InputOrigin | undefined, era: Era): ModelSource | string {
    const { provider } = this.#options;
    const canSample = origin !== undefined && samplingSupport(origin.capabilities) !== undefined;
    if (provider !== 'sampling' && this.#anthropic && (provider === 'anthropic' || !canSample))
      return this.#anthropic;
    if (provider !== 'anthropic' && canSample) return new SamplingModel(origin);
    if (provider === 'anthropic')
      return `the agent provider is anthropic but no API key is set: ${CONFIGURE_API}`;
    if (era === 'modern' && origin === undefined)
      return provider === 'sampling'
        ? 'a 2026-07-28 client is sampled only during its own call of agent (input_required rounds): run agent in the foreground'
        : `a 2026-07-28 client is sampled only during its own call of agent (input_required rounds): run agent in the foreground, or ${CONFIGURE_API}`;
    return provider === 'sampling'
      ? 'the client does not declare sampling, so the sub-agent cannot run on its model (--agent-provider sampling allows nothing else)'
      : `the client does not declare sampling, so the sub-agent cannot run on its model; ${CONFIGURE_API}`;
  }
}
