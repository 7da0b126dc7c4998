//! What the Assessor tells people and tools beside the bus: `cordon assess`'s text, JSON
//! and SARIF ([`output`]), the optional external analysers merged into an assessment
//! ([`external`]), and `docs/rules.md`, written from the rule table (`rules_doc`, tests).

pub(crate) mod external;
pub(crate) mod output;
#[cfg(test)]
mod rules_doc;
