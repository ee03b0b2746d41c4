package index

import (
	"encoding/json"
	"fmt"

	"github.com/blevesearch/bleve/v2/mapping"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// Fields of a table's document, and how much a match in each counts.
const (
	fieldName    = "name"    // the table name
	fieldColumns = "columns" // column names
	fieldText    = "text"    // table and column descriptions
	fieldValues  = "values"  // frequent values of text columns
	fieldSource  = "source"  // file or connection
	fieldOrigin  = "origin"  // keyword, for filtering
	fieldRecord  = "record"  // the Table as JSON, stored only
)

// boosts weigh a term's match by field.
var boosts = map[string]float64{
	fieldName:    3.0,
	fieldColumns: 1.5,
	fieldText:    1.0,
	fieldValues:  0.8,
	fieldSource:  0.5,
}

func newMapping() mapping.IndexMapping {
	text := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = identAnalyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	doc := mapping.NewDocumentStaticMapping()
	for _, name := range []string{fieldName, fieldColumns, fieldText, fieldValues, fieldSource} {
		doc.AddFieldMappingsAt(name, text())
	}
	kw := mapping.NewKeywordFieldMapping()
	kw.Store, kw.IncludeInAll, kw.IncludeTermVectors, kw.DocValues = false, false, false, false
	doc.AddFieldMappingsAt(fieldOrigin, kw)
	rec := mapping.NewTextFieldMapping()
	rec.Index, rec.Store, rec.IncludeInAll, rec.IncludeTermVectors, rec.DocValues = false, true, false, false, false
	doc.AddFieldMappingsAt(fieldRecord, rec)

	m := mapping.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = identAnalyzer
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	m.ScoringModel = bleveindex.BM25Scoring
	return m
}

// document is what bleve indexes for t.
func document(t Table) (map[string]any, error) {
	rec, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode table %s: %w", t.Name, err)
	}
	cols := make([]string, 0, len(t.Columns))
	var text, values []string
	if t.Description != "" {
		text = append(text, t.Description)
	}
	for _, c := range t.Columns {
		cols = append(cols, c.Name)
		if c.Description != "" {
			text = append(text, c.Description)
		}
		values = append(values, c.Values...)
	}
	return map[string]any{
		fieldName:    t.Name,
		fieldColumns: cols,
		fieldText:    text,
		fieldValues:  values,
		fieldSource:  t.Source,
		fieldOrigin:  t.Origin,
		fieldRecord:  string(rec),
	}, nil
}
