package index

import (
	"context"
	"slices"
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
)

// unseen is a workspace of several empty databases in one file, with
// look-alike tables across them: names, types and keys only.
func unseen() []Table {
	cols := func(names ...string) []Column {
		out := make([]Column, len(names))
		for i, n := range names {
			out[i] = Column{Name: n, Type: "VARCHAR"}
		}
		return out
	}
	return []Table{
		{Name: "world_country", Group: "f#world", Columns: cols("Code", "Name", "Continent", "Region", "Population")},
		{Name: "world_countrylanguage", Group: "f#world", Columns: cols("CountryCode", "Language", "IsOfficial", "Percentage")},
		{Name: "world_city", Group: "f#world", Columns: cols("ID", "Name", "CountryCode", "District", "Population")},
		{Name: "films_language", Group: "f#films", Columns: cols("language_id", "name", "last_update")},
		{Name: "films_film", Group: "f#films", Columns: cols("film_id", "title", "language_id", "rating")},
		{Name: "league_country", Group: "f#league", Columns: cols("id", "name")},
		{Name: "pets_pets", Group: "f#pets", Columns: cols("PetID", "PetType", "pet_age", "weight")},
		{Name: "pets_has_pet", Group: "f#pets", Columns: cols("StuID", "PetID")},
		{Name: "shop_category", Group: "f#shop", Columns: cols("category_id", "category_name")},
		{Name: "shop_cat_rank", Group: "f#shop", Columns: cols("cat_id", "rank")},
		{Name: "cars_car_makers", Group: "f#cars", Columns: cols("Id", "Maker", "FullName", "Country")},
		{Name: "cars_car_names", Group: "f#cars", Columns: cols("MakeId", "Model", "Make")},
	}
}

func TestSearchUnseenSchemas(t *testing.T) {
	ctx := context.Background()
	x, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Sync(ctx, Workspace, unseen()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why, question string
		want          []string // in the first len(want)+1 hits
		notFirst      string
	}{
		{"a word inside a compound name", "Which languages are spoken by the most countries?",
			[]string{"world_countrylanguage"}, ""},
		{"a value of a known kind, with no rows to find it in", "What is the official language of Aruba?",
			[]string{"world_countrylanguage", "world_country"}, ""},
		{"a synonym of a table's word", "How many nations are in Europe?", []string{"world_country"}, ""},
		{"the group covering the question rises together", "Which cities are in countries where Dutch is spoken?",
			[]string{"world_city", "world_countrylanguage", "world_country"}, ""},
		{"a misspelling one letter off", "List every carr", []string{"cars_car_makers", "cars_car_names"}, ""},
		{"an abbreviation that is a word is not spelled out in a question", "What is the weight of each cat?",
			[]string{"pets_pets"}, "shop_category"},
	} {
		hits, err := x.Search(ctx, tc.question, Options{K: len(tc.want) + 1})
		if err != nil {
			t.Fatal(err)
		}
		got := hitNames(hits)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: %q found %v, want %s", tc.why, tc.question, got, w)
			}
		}
		if tc.notFirst != "" && len(got) > 0 && got[0] == tc.notFirst {
			t.Errorf("%s: %q ranks %s first", tc.why, tc.question, tc.notFirst)
		}
	}
	// an identifier's abbreviation is still spelled out
	if hits, err := x.Search(ctx, "category rank", Options{K: 2}); err != nil || !slices.Contains(hitNames(hits), "shop_cat_rank") {
		t.Errorf("cat_id for category: %v, %v", hitNames(hits), err)
	}
}

func TestNearAndCompounds(t *testing.T) {
	m := &compoundMap{vocab: map[string]bool{"car": true, "student": true, "name": true, "languag": true}}
	for term, want := range map[string][]string{"carr": {"car"}, "care": {"car"}, "studnet": {"student"}, "car": nil, "nme": nil} {
		if got := m.near(term); !slices.Equal(got, want) {
			t.Errorf("near(%q) = %v, want %v", term, got, want)
		}
	}
}

// TestGroupOfSchema: each schema of a database file is a group of its
// own, as each connection schema is; a sheet's name with a dot is not.
func TestGroupOfSchema(t *testing.T) {
	for _, tc := range []struct {
		kind, part, want string
	}{
		{"duckdb", "world.country", "/d/all.duckdb#world"},
		{"duckdb", "country", "/d/all.duckdb"},
		{"sqlite", "odd.name", "/d/all.duckdb"}, // a SQLite file has one schema
		{"xlsx", "Q1.2024", "/d/all.duckdb"},
	} {
		got := FromDataset(catalog.Dataset{Name: "x", Kind: tc.kind, Source: "/d/all.duckdb", Part: tc.part}).Group
		if got != tc.want {
			t.Errorf("%s part %q: group %q, want %q", tc.kind, tc.part, got, tc.want)
		}
	}
}
