//! User input during HITL: clarifying questions (`ask_user_question`),
//! the answers a user gives, and user-input preprocessors.

mod answers;
mod preprocessors;
mod questions;
