package indextest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
)

// Word pools for synthetic schemas: the departments, things and facts an
// enterprise warehouse is made of.
var (
	areas = []string{"sales", "hr", "fin", "crm", "ops", "mkt", "inv", "log", "proc", "mfg", "svc", "it",
		"legal", "risk", "pay", "edu", "health", "retail", "web", "ads"}
	entities = []string{"customer", "order", "order_line", "invoice", "payment", "product", "supplier",
		"employee", "department", "account", "ledger_entry", "shipment", "warehouse", "campaign", "lead",
		"opportunity", "contract", "ticket", "asset", "vendor", "purchase_order", "budget", "forecast",
		"store", "region", "territory", "price_list", "discount", "promotion", "return", "refund",
		"subscription", "plan", "session", "page_view", "click", "device", "user", "role", "permission",
		"course", "student", "enrollment", "patient", "visit", "claim", "policy", "premium", "loan",
		"transaction", "branch", "atm", "card", "merchant", "trip", "driver", "vehicle", "route", "stop",
		"flight", "booking", "hotel", "room", "review", "rating", "survey", "response", "incident"}
	suffixes = []string{"", "", "", "_history", "_snapshot", "_daily", "_monthly", "_stage", "_archive",
		"_v2", "_detail", "_summary", "_audit", "_map", "_xref", "_2019", "_2020", "_2021", "_2022", "_2023"}
	measures = []string{"amount", "quantity", "unit_price", "total", "discount_pct", "tax_amount",
		"balance", "score", "duration_min", "weight_kg", "cost", "revenue", "margin", "count", "rate"}
	attrs = []string{"name", "status", "type", "category", "code", "description", "email", "phone",
		"city", "country", "state", "channel", "currency", "priority", "source", "segment", "tier"}
	dates  = []string{"created_at", "updated_at", "start_date", "end_date", "closed_at", "due_date", "event_time"}
	values = map[string][]string{
		"status":   {"active", "inactive", "pending", "closed"},
		"channel":  {"online", "store", "partner"},
		"currency": {"USD", "EUR", "GBP"},
		"priority": {"low", "medium", "high"},
		"segment":  {"consumer", "corporate", "small business"},
		"tier":     {"gold", "silver", "bronze"},
		"country":  {"United States", "Germany", "France", "Japan"},
	}
)

// Synthetic returns n tables with realistic warehouse names and columns
// (area_entity_suffix, ids, references to other entities' ids, measures,
// attributes with frequent values, dates), the same for the same seed.
// Names are unique.
func Synthetic(n int, seed uint64) []index.Table {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	seen := map[string]bool{}
	out := make([]index.Table, 0, n)
	for len(out) < n {
		area := areas[r.IntN(len(areas))]
		ent := entities[r.IntN(len(entities))]
		name := area + "_" + ent + suffixes[r.IntN(len(suffixes))]
		for i := 2; seen[name]; i++ {
			name = fmt.Sprintf("%s_%s%s_%d", area, ent, suffixes[r.IntN(len(suffixes))], i)
		}
		seen[name] = true
		out = append(out, syntheticTable(r, name, ent))
	}
	return out
}

func syntheticTable(r *rand.Rand, name, ent string) index.Table {
	rows := int64(100 + r.IntN(1_000_000))
	t := index.Table{Name: name, Origin: index.Workspace, Source: name + ".parquet", Rows: rows}
	key := ent + "_id"
	t.Columns = append(t.Columns, index.Column{Name: key, Type: "BIGINT", Distinct: rows})
	for i, k := 0, r.IntN(4); i < k; i++ {
		ref := entities[r.IntN(len(entities))]
		if ref != ent && t.Column(ref+"_id") == nil {
			t.Columns = append(t.Columns, index.Column{Name: ref + "_id", Type: "BIGINT", Distinct: rows / 10})
		}
	}
	for i, k := 0, 2+r.IntN(6); i < k; i++ {
		m := measures[r.IntN(len(measures))]
		if t.Column(m) == nil {
			t.Columns = append(t.Columns, index.Column{Name: m, Type: "DOUBLE", Distinct: rows / 2})
		}
	}
	for i, k := 0, 2+r.IntN(6); i < k; i++ {
		a := attrs[r.IntN(len(attrs))]
		if t.Column(a) != nil {
			continue
		}
		c := index.Column{Name: a, Type: "VARCHAR", Distinct: rows / 3}
		if v, ok := values[a]; ok {
			c.Values, c.Distinct = v, int64(len(v))
		}
		t.Columns = append(t.Columns, c)
	}
	for i, k := 0, 1+r.IntN(3); i < k; i++ {
		d := dates[r.IntN(len(dates))]
		if t.Column(d) == nil {
			t.Columns = append(t.Columns, index.Column{Name: d, Type: "TIMESTAMP", Distinct: rows})
		}
	}
	return t
}

// SyntheticQuestions returns n questions about the entities and measures
// of synthetic schemas, the same for the same seed.
func SyntheticQuestions(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, seed+1))
	forms := []string{
		"What is the total %s of %s by %s?",
		"How many %[2]s records had %[1]s above 100 last month, per %[3]s?",
		"Show the average %s for each %s %s",
		"Which %[3]s has the highest %[1]s across %[2]s?",
	}
	out := make([]string, n)
	for i := range out {
		m := strings.ReplaceAll(measures[r.IntN(len(measures))], "_", " ")
		e := strings.ReplaceAll(entities[r.IntN(len(entities))], "_", " ")
		a := attrs[r.IntN(len(attrs))]
		out[i] = fmt.Sprintf(forms[r.IntN(len(forms))], m, e+"s", a)
	}
	return out
}

// SyntheticDatasets is Synthetic as catalog records, for a workspace whose
// catalog holds thousands of datasets without their data.
func SyntheticDatasets(n int, seed uint64) []catalog.Dataset {
	ts := Synthetic(n, seed)
	out := make([]catalog.Dataset, len(ts))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, t := range ts {
		d := catalog.Dataset{Name: t.Name, Kind: "parquet", Source: "/data/warehouse/" + t.Source, Rows: t.Rows, Storage: "view", LoadedAt: at}
		for _, c := range t.Columns {
			cc := catalog.Column{Name: c.Name, Type: c.Type, Distinct: c.Distinct}
			for _, v := range c.Values {
				cc.Top = append(cc.Top, catalog.Value{Value: v, Count: t.Rows / int64(len(c.Values))})
			}
			d.Columns = append(d.Columns, cc)
		}
		out[i] = d
	}
	return out
}
