//! Loading a tree of sub-agents: one tool per sub-agent, in one toolset under the entry's name.
