package index

// abbreviations maps a lower-case abbreviation common in schemas to the
// word it stands for. Only unambiguous ones: "doc" (doctor or document)
// and "st" (street or state) are left alone.
var abbreviations = map[string]string{
	"acct": "account", "accts": "accounts", "addr": "address", "amt": "amount", "amnt": "amount",
	"avg": "average", "bal": "balance", "cat": "category", "cnt": "count", "ccy": "currency",
	"curr": "currency", "cust": "customer", "custs": "customers", "ctry": "country", "cntry": "country",
	"desc": "description", "descr": "description", "dept": "department", "diag": "diagnosis",
	"dob": "birthdate", "dt": "date", "emp": "employee", "emps": "employees", "empl": "employee",
	"grp": "group", "img": "image", "info": "information", "inv": "invoice", "lat": "latitude",
	"lng": "longitude", "lon": "longitude", "loc": "location", "mgr": "manager", "msg": "message",
	"nbr": "number", "num": "number", "org": "organization", "orgs": "organizations", "pct": "percent",
	"perc": "percent", "pmt": "payment", "pymt": "payment", "prod": "product", "prods": "products",
	"qty": "quantity", "qtr": "quarter", "rev": "revenue", "seq": "sequence", "sts": "status",
	"stat": "status", "tel": "telephone", "tot": "total", "txn": "transaction", "txns": "transactions",
	"tx": "transaction", "trx": "transaction", "usr": "user", "val": "value", "yr": "year", "yrs": "years",
	"wk": "week", "hr": "hour", "hrs": "hours", "mins": "minutes", "secs": "seconds", "cd": "code",
	"nm": "name", "flg": "flag", "ref": "reference", "src": "source", "dest": "destination",
	"cty": "city", "zip": "zipcode", "postcode": "zipcode", "postal": "zipcode", "phn": "phone",
	"ph": "phone", "mob": "mobile", "ver": "version", "vol": "volume", "wt": "weight", "ht": "height",
	"temp": "temperature", "max": "maximum", "min": "minimum", "std": "standard",
}

// wordsToo are the abbreviations that are English words as well: in a
// question they mean the word.
var wordsToo = map[string]bool{"cat": true, "mob": true, "tot": true, "temp": true, "ref": true}

// related adds words a question may use for the same thing: base forms of
// irregular verbs, and nouns with the verbs they come from where stemming
// does not join them (sale/sell, payment/pay). Keys are lower case and
// already spelled out; values are added beside the word, not instead.
var related = map[string][]string{
	// irregular verbs → base form
	"sold": {"sell", "sale"}, "sell": {"sale"}, "sells": {"sale"}, "selling": {"sale"},
	"sale": {"sell"}, "sales": {"sell"},
	"bought": {"buy", "purchase"}, "buy": {"purchase"}, "buys": {"purchase"}, "buying": {"purchase"},
	"purchase": {"buy"}, "purchases": {"buy"}, "purchased": {"buy"},
	"paid": {"pay", "payment"}, "pay": {"payment"}, "pays": {"payment"}, "paying": {"payment"},
	"payment": {"pay"}, "payments": {"pay"},
	"spent": {"spend"}, "wrote": {"write"}, "written": {"write"},
	"taught": {"teach"}, "flew": {"fly", "flight"}, "flown": {"fly", "flight"},
	"fly": {"flight"}, "flies": {"flight"}, "flight": {"fly"}, "flights": {"fly"},
	"gave": {"give"}, "given": {"give"}, "took": {"take"}, "taken": {"take"}, "made": {"make"},
	"held": {"hold"}, "met": {"meet"}, "won": {"win"}, "lost": {"lose", "loss"}, "grew": {"grow"},
	"grown": {"grow"}, "built": {"build"}, "ran": {"run"}, "left": {"leave"}, "sent": {"send"},
	"shipped": {"ship", "shipment"}, "ships": {"shipment"}, "shipment": {"ship"}, "shipments": {"ship"},
	"ordered": {"order"}, "hired": {"hire"}, "hire": {"employ"}, "employed": {"employ"},
	"cited": {"cite", "citation"}, "cites": {"citation"}, "cite": {"citation"}, "citing": {"citation"},
	"citation": {"cite"}, "citations": {"cite"},
	"published": {"publication"}, "publish": {"publication"}, "publishes": {"publication"},
	"publication": {"publish"}, "publications": {"publish"},
	"reviewed": {"review"}, "rated": {"rating"}, "rate": {"rating"}, "rating": {"rate"},
	"earned": {"earn", "revenue"}, "earnings": {"earn", "revenue"}, "revenue": {"earn"},
	"born": {"birth"}, "birthdate": {"birth"}, "died": {"death"}, "dead": {"death"},
	"located": {"location"}, "lives": {"live"}, "lived": {"live"},
	"enrolled": {"enroll", "enrollment"}, "enrollment": {"enroll"},
	"treated": {"treatment"}, "treat": {"treatment"}, "treatment": {"treat"}, "treatments": {"treat"},
	"diagnosed": {"diagnosis"}, "prescribed": {"prescription"},
	"transferred": {"transfer"}, "booked": {"booking"}, "reserved": {"reservation"},
	"delivered": {"delivery"}, "returned": {"return"}, "registered": {"registration"},
	"signed": {"signup"}, "joined": {"join"}, "visited": {"visit"}, "played": {"play"},
	"zipcode": {"zip", "postal"},
	"money":   {"amount"}, "price": {"cost"}, "cost": {"price"}, "staff": {"employee"},
	"worker": {"employee"}, "workers": {"employee"}, "client": {"customer"}, "clients": {"customer"},
	"customer": {"client"}, "customers": {"client"},
	"nation": {"country"}, "nations": {"country"}, "speak": {"language"}, "speaks": {"language"},
	"spoke": {"speak", "language"}, "spoken": {"speak", "language"}, "speaking": {"language"},
}

// questionWords are the words of a question that do not point at any
// table: what is asked for, not what about. Lower case, before stemming.
var questionWords = map[string]bool{
	"show": true, "list": true, "give": true, "find": true, "tell": true, "get": true,
	"display": true, "many": true, "much": true, "please": true, "per": true, "among": true,
	"also": true, "along": true, "including": true, "include": true, "respective": true,
	"respectively": true, "corresponding": true, "according": true, "based": true, "exist": true,
	"exists": true, "existing": true, "provide": true, "want": true, "need": true, "know": true,
	"like": true, "whose": true, "every": true, "across": true, "within": true,
	"top": true, "first": true, "highest": true, "lowest": true, "greatest": true,
	"least": true, "most": true, "fewest": true, "largest": true, "smallest": true, "biggest": true,
	"overall": true, "different": true, "distinct": true,
	"unique": true, "specific": true, "particular": true, "certain": true,
	"one": true, "two": true, "three": true, "ten": true, "five": true,
}
