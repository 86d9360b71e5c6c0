//! placeholder until written below
