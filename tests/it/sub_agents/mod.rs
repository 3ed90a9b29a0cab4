//! Sub-agents: agents offered as tools, in code, in manifests and on the command line.

mod runtime;
