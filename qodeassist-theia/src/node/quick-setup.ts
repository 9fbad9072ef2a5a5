import { SetupPreset } from '../common/config-protocol';

/** The Quick Setup's presets: bundled providers and the bundled agents for each pipeline. */
export const SETUP_PRESETS: ReadonlyArray<Omit<SetupPreset, 'url' | 'keyVariable' | 'keyFound'>> = [
    { id: 'ollama', label: 'Ollama (local)', provider: 'ollama', local: true, agents: { chat: 'ollama-chat', completion: 'ollama-fim-qwen25coder', refactor: 'ollama-refactor', compression: 'ollama-compression' } },
    { id: 'llamacpp', label: 'llama.cpp (local)', provider: 'llamacpp', local: true, agents: { chat: 'llamacpp-chat', completion: 'llamacpp-fim' } },
    { id: 'lmstudio', label: 'LM Studio (local)', provider: 'lmstudio', local: true, agents: { chat: 'lmstudio-chat' } },
    { id: 'claude', label: 'Anthropic Claude', provider: 'anthropic', local: false, agents: { chat: 'claude-chat', completion: 'claude-completion', refactor: 'claude-refactor', compression: 'claude-compression' } },
    { id: 'openai', label: 'OpenAI', provider: 'openai', local: false, agents: { chat: 'openai-chat', completion: 'openai-completion', refactor: 'openai-refactor', compression: 'openai-compression' } },
    { id: 'gemini', label: 'Google Gemini', provider: 'google', local: false, agents: { chat: 'gemini-chat', completion: 'gemini-completion', refactor: 'gemini-refactor', compression: 'gemini-compression' } },
    { id: 'mistral', label: 'Mistral and Codestral', provider: 'mistral', local: false, agents: { chat: 'mistral-chat', completion: 'codestral-fim' } },
    { id: 'deepseek', label: 'DeepSeek', provider: 'deepseek', local: false, agents: { chat: 'deepseek-chat', completion: 'deepseek-completion' } },
    { id: 'openrouter', label: 'OpenRouter', provider: 'openrouter', local: false, agents: { chat: 'openrouter-chat' } }
];
