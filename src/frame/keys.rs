//! Key columns (`group_id`, `host_id`, `measurement`, ...): Categorical over polars' global
//! categories, so that frames of different pulls join, filter, concatenate and group together
//! with no string cache to set up, and compare with plain strings.
//!
//! A key column holds a 4-byte category id per row where a String column holds a 16-byte
//! view: for the long frame of a fleet pull that is 0.4x the bytes. Each distinct value is
//! looked up once per run of equal values (a series, a result), never once per row.

use std::sync::Arc;

use polars::prelude::*;
use polars_arrow::array::PrimitiveArray;
use polars_arrow::bitmap::BitmapBuilder;
use polars_arrow::datatypes::ArrowDataType;

use super::polars_err;
use crate::error::Result;

/// The dtype of every key column: Categorical over the global categories.
pub fn key_dtype() -> DataType {
    DataType::from_categories(Categories::global())
}

/// Builds one key column run by run.
pub(crate) struct KeyColumn {
    mapping: Arc<CategoricalMapping>,
    dtype: DataType,
    ids: Vec<u32>,
    validity: BitmapBuilder,
    /// The last value looked up and its id: runs of the same value skip the hash lookup.
    last: Option<(String, u32)>,
}

impl KeyColumn {
    pub(crate) fn with_capacity(rows: usize) -> Self {
        let dtype = key_dtype();
        let mapping = dtype
            .cat_mapping()
            .expect("a Categorical dtype has a mapping")
            .clone();
        Self {
            mapping,
            dtype,
            ids: Vec::with_capacity(rows),
            validity: BitmapBuilder::with_capacity(rows),
            last: None,
        }
    }

    /// The id of `value`, added to the global categories if new.
    fn id(&mut self, value: &str) -> Result<u32> {
        if let Some((last, id)) = &self.last {
            if last == value {
                return Ok(*id);
            }
        }
        let id = self.mapping.insert_cat(value).map_err(polars_err)?;
        self.last = Some((value.to_owned(), id));
        Ok(id)
    }

    /// Appends `rows` rows that all hold `value` (null for `None`).
    pub(crate) fn extend(&mut self, value: Option<&str>, rows: usize) -> Result<()> {
        match value {
            Some(v) => {
                let id = self.id(v)?;
                self.ids.extend(std::iter::repeat_n(id, rows));
                self.validity.extend_constant(rows, true);
            }
            None => {
                self.ids.extend(std::iter::repeat_n(0, rows));
                self.validity.extend_constant(rows, false);
            }
        }
        Ok(())
    }

    pub(crate) fn finish(self, name: &str) -> Column {
        let ids = PrimitiveArray::<u32>::new(
            ArrowDataType::UInt32,
            self.ids.into(),
            self.validity.into_opt_validity(),
        );
        let ids = UInt32Chunked::with_chunk(name.into(), ids);
        // SAFETY: every id came from `insert_cat` on this dtype's mapping (nulls hold 0 under a
        // cleared validity bit), and the global categories are u32.
        unsafe {
            CategoricalChunked::<Categorical32Type>::from_cats_and_dtype_unchecked(ids, self.dtype)
        }
        .into_series()
        .into_column()
    }
}

/// A key column of one value per row (list frames).
pub(crate) fn key_column<'a>(
    name: &str,
    values: impl ExactSizeIterator<Item = Option<&'a str>>,
) -> Result<Column> {
    let mut c = KeyColumn::with_capacity(values.len());
    for v in values {
        c.extend(v, 1)?;
    }
    Ok(c.finish(name))
}
