package sample

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// seed fixes the generator: the same files come out on every machine.
const seed = 20240917

type product struct {
	id       int
	name     string
	category string
	price    float64
	returns  float64 // chance an order of it is returned
}

var products = []product{
	{1, "Linen shirt", "Apparel", 49, 0.12}, {2, "Wool sweater", "Apparel", 89, 0.10},
	{3, "Rain jacket", "Apparel", 129, 0.09}, {4, "Canvas sneakers", "Footwear", 69, 0.15},
	{5, "Leather boots", "Footwear", 159, 0.13}, {6, "Trail runners", "Footwear", 119, 0.11},
	{7, "Ceramic mug", "Home", 16, 0.03}, {8, "Oak cutting board", "Home", 39, 0.02},
	{9, "Cotton throw", "Home", 59, 0.04}, {10, "Desk lamp", "Home", 74, 0.05},
	{11, "Espresso beans 1kg", "Grocery", 24, 0.01}, {12, "Green tea 100g", "Grocery", 12, 0.01},
	{13, "Dark chocolate box", "Grocery", 18, 0.01}, {14, "Notebook A5", "Stationery", 9, 0.02},
	{15, "Fountain pen", "Stationery", 45, 0.04}, {16, "Backpack", "Accessories", 79, 0.06},
	{17, "Sunglasses", "Accessories", 99, 0.08}, {18, "Wool scarf", "Accessories", 35, 0.05},
}

var (
	regions  = []string{"North", "South", "East", "West"}
	cities   = map[string][]string{"North": {"Aberdeen", "Bergen", "Tromsø"}, "South": {"Seville", "Naples", "Porto"}, "East": {"Kraków", "Vilnius", "Tallinn"}, "West": {"Galway", "Brest", "Cork"}}
	segments = []string{"Consumer", "Consumer", "Consumer", "Small business", "Small business", "Corporate"}
	first    = []string{"Ana", "Ben", "Chloé", "Dmitri", "Eva", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kasia", "Luca", "Maya", "Nils", "Olga", "Pablo", "Rosa", "Sami", "Tess", "Uma", "Viktor", "Wren", "Yara", "Zoe"}
	last     = []string{"Almeida", "Berg", "Costa", "Dubois", "Eriksen", "Fischer", "García", "Horvat", "Ivanova", "Jensen", "Kowalski", "Larsen", "Moreau", "Novak", "O'Brien", "Petrov", "Quinn", "Rossi", "Silva", "Tanaka"}
	channels = []string{"web", "web", "web", "store", "store", "phone"}
)

// Generate makes the sample files: customers.csv, products.csv and
// orders.csv of a fictional shop, January 2024 to June 2025. The data has
// patterns worth finding: a year-end peak, the West growing fastest,
// footwear returned most, discounts bringing larger baskets, and a few
// cancelled orders with no ship date.
func Generate() map[string][]byte {
	r := rand.New(rand.NewPCG(seed, seed>>3))
	out := map[string][]byte{}

	var pb bytes.Buffer
	pw := csv.NewWriter(&pb)
	_ = pw.Write([]string{"product_id", "product_name", "category", "list_price"})
	for _, p := range products {
		_ = pw.Write([]string{strconv.Itoa(p.id), p.name, p.category, money(p.price)})
	}
	pw.Flush()
	out["products.csv"] = pb.Bytes()

	type customer struct {
		id     int
		region string
		signup time.Time
	}
	var customers []customer
	var cb bytes.Buffer
	cw := csv.NewWriter(&cb)
	_ = cw.Write([]string{"customer_id", "customer_name", "city", "region", "segment", "signup_date"})
	start := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for id := 1; id <= 160; id++ {
		region := regions[r.IntN(len(regions))]
		if r.Float64() < 0.15 {
			region = "West"
		}
		signup := start.AddDate(0, 0, r.IntN(800))
		customers = append(customers, customer{id, region, signup})
		name := first[r.IntN(len(first))] + " " + last[r.IntN(len(last))]
		city := cities[region][r.IntN(3)]
		_ = cw.Write([]string{strconv.Itoa(id), name, city, region, segments[r.IntN(len(segments))], signup.Format(time.DateOnly)})
	}
	cw.Flush()
	out["customers.csv"] = cb.Bytes()

	var ob bytes.Buffer
	ow := csv.NewWriter(&ob)
	_ = ow.Write([]string{"order_id", "order_date", "ship_date", "customer_id", "product_id", "quantity", "unit_price", "discount", "channel", "status"})
	id := 10001
	for day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC); day.Before(time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)); day = day.AddDate(0, 0, 1) {
		n := ordersOn(r, day)
		for range n {
			// Customers order only after signing up; the West gains share
			// over time.
			west := r.Float64() < 0.9*(growth(day)-1)
			c := customers[r.IntN(len(customers))]
			for tries := 0; tries < 50 && (c.signup.After(day) || (west && c.region != "West")); tries++ {
				c = customers[r.IntN(len(customers))]
			}
			p := products[r.IntN(len(products))]
			discount := 0.0
			if r.Float64() < 0.25 {
				discount = []float64{0.05, 0.10, 0.15, 0.20}[r.IntN(4)]
			}
			qty := 1 + r.IntN(3)
			if discount > 0 {
				qty += r.IntN(3)
			}
			price := p.price
			if day.Year() == 2025 {
				price = math.Round(price*1.04*100) / 100 // a price rise in 2025
			}
			status, ship := "shipped", day.AddDate(0, 0, 1+r.IntN(4))
			switch u := r.Float64(); {
			case u < 0.03:
				status = "cancelled"
			case u < 0.03+p.returns:
				status = "returned"
			}
			shipText := ship.Format(time.DateOnly)
			if status == "cancelled" {
				shipText = ""
			}
			_ = ow.Write([]string{strconv.Itoa(id), day.Format(time.DateOnly), shipText, strconv.Itoa(c.id), strconv.Itoa(p.id),
				strconv.Itoa(qty), money(price), fmt.Sprintf("%.2f", discount), channels[r.IntN(len(channels))], status})
			id++
		}
	}
	ow.Flush()
	out["orders.csv"] = ob.Bytes()
	return out
}

// ordersOn is how many orders a day gets: more at weekends, many more in
// November and December, and slowly more over time.
func ordersOn(r *rand.Rand, day time.Time) int {
	mean := 3.0 * growth(day)
	if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
		mean *= 1.4
	}
	switch day.Month() {
	case time.November:
		mean *= 1.6
	case time.December:
		mean *= 2.1
	case time.January:
		mean *= 0.7
	}
	n := int(mean + r.NormFloat64()*math.Sqrt(mean))
	return max(n, 0)
}

// growth rises from 1 to about 1.35 over the eighteen months.
func growth(day time.Time) float64 {
	months := float64(day.Year()-2024)*12 + float64(day.Month()-1)
	return 1 + 0.02*months
}

func money(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
