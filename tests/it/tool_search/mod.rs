//! `ToolSearchToolset`: tools hidden until `tool_search` loads them.

mod loading;
mod refresh;
