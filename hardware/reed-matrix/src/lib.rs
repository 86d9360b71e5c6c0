//! reed-matrix
