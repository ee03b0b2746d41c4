package index

import "strings"

// A question often names a value instead of its column ("in France",
// "spoken in Aruba", "European countries"). With rows to sample the index
// holds such values; without (an empty table, a remote schema never
// sampled) only the kind of thing they are can point at a table. These
// lists give a few common kinds of value the word for the kind, added
// beside the value as related words are: France → country, Asia →
// continent and region, Dutch → language. They are general knowledge,
// not any one schema's.
var valueKinds = map[string]string{
	"country": `afghanistan albania algeria andorra angola argentina armenia aruba australia austria
		azerbaijan bahamas bahrain bangladesh barbados belarus belgium belize benin bhutan bolivia
		bosnia botswana brazil brunei bulgaria burundi cambodia cameroon canada chad chile china
		colombia comoros congo croatia cuba cyprus czechia czech denmark djibouti dominica ecuador
		egypt eritrea estonia eswatini ethiopia fiji finland france gabon gambia georgia germany
		ghana greece greenland grenada guatemala guinea guyana haiti honduras hungary iceland india
		indonesia iran iraq ireland israel italy jamaica japan jordan kazakhstan kenya kiribati
		korea kosovo kuwait kyrgyzstan laos latvia lebanon lesotho liberia libya liechtenstein
		lithuania luxembourg madagascar malawi malaysia maldives mali malta mauritania mauritius
		mexico micronesia moldova monaco mongolia montenegro morocco mozambique myanmar namibia
		nauru nepal netherlands nicaragua niger nigeria norway oman pakistan palau palestine panama
		paraguay peru philippines poland portugal qatar romania russia rwanda samoa senegal serbia
		seychelles singapore slovakia slovenia somalia spain sudan suriname sweden switzerland syria
		taiwan tajikistan tanzania thailand togo tonga tunisia turkey turkmenistan tuvalu uganda
		ukraine uruguay usa uk uzbekistan vanuatu venezuela vietnam yemen zambia zimbabwe`,
	"continent": `africa antarctica asia europe oceania america americas african asian european
		antarctic oceanian american`,
	"language": `english french spanish german dutch chinese mandarin cantonese arabic portuguese
		russian japanese italian hindi bengali urdu korean turkish polish swedish danish finnish
		norwegian greek hebrew persian swahili thai vietnamese indonesian malay czech hungarian
		romanian ukrainian tagalog`,
}

func init() {
	for kind, words := range valueKinds {
		add := []string{kind}
		if kind == "continent" {
			add = append(add, "region")
		}
		for _, w := range strings.Fields(words) {
			related[w] = append(related[w], add...)
		}
	}
}
