//! `values.schema.json` validation (filled in below).

use super::deps::WChart;
use super::values::M;

pub(crate) fn validate(_w: &WChart, _vals: &M, _warn: &mut Vec<String>) -> Result<(), String> {
    Ok(())
}
