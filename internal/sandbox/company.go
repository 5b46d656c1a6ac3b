package sandbox

import (
	"fmt"
	"strings"
)

// Company is a company of the world, with the firmographics lead filters use.
type Company struct {
	Index       int // roster index, -1 for a company derived from a slug asked for directly
	ID          int64
	Name        string
	Slug        string // pronet company page slug
	Domain      string
	Website     string
	LogoURL     string
	Industry    string
	SizeBand    string // 1-10 … 10001+
	CountryCode string
	Country     string
	City        string
	Founded     int
	Followers   int
}

// URL is the company's pronet page.
func (c Company) URL() string { return "https://www.linkedin.com/company/" + c.Slug + "/" }

// URN is the company's pronet urn.
func (c Company) URN() string { return fmt.Sprintf("urn:li:company:%d", c.ID) }

func (w *World) buildCompanies() {
	w.companies = make([]Company, 0, rosterCompanies)
	for i := 0; i < rosterCompanies; i++ {
		r := newRNG(hashN(w.seed, 0xc0, uint64(i)))
		var name, slug string
		for try := 0; ; try++ {
			name = pick(r, companyPrefixes) + pick(r, companySuffixes)
			slug = strings.ToLower(name)
			if try > 3 {
				slug = fmt.Sprintf("%s-%d", slug, i)
			}
			if _, taken := w.bySlug[slug]; !taken {
				break
			}
		}
		c := w.fillCompany(r, name, slug)
		c.Index = i
		w.bySlug[slug] = i
		w.companies = append(w.companies, c)
	}
}

func (w *World) derivedCompany(slug string) Company {
	r := newRNG(hashString(w.seed^0xc1, slug))
	c := w.fillCompany(r, titleCase(slug), slug)
	c.Index = -1
	return c
}

func (w *World) fillCompany(r *rng, name, slug string) Company {
	ctry := countries[weighted(r, countryWeights)]
	domainBase := strings.NewReplacer("-", "", "_", "", ".", "").Replace(slug)
	domain := domainBase + "." + pick(r, companyTLDs)
	size := weighted(r, sizeWeights)
	return Company{
		ID:          int64(1000000 + r.intn(90000000)),
		Name:        name,
		Slug:        slug,
		Domain:      domain,
		Website:     "https://" + domain,
		LogoURL:     "https://media.licdn.com/dms/image/company-logo/" + slug + ".png",
		Industry:    pick(r, industries),
		SizeBand:    sizeBands[size],
		CountryCode: ctry.Code,
		Country:     ctry.Name,
		City:        pick(r, ctry.Cities),
		Founded:     careerYear - 1 - r.intn(25),
		Followers:   (size+1)*(size+1)*150 + r.heavy(8),
	}
}

// titleCase turns a slug such as "jane-doe" into "Jane Doe".
func titleCase(slug string) string {
	parts := strings.FieldsFunc(slug, func(c rune) bool { return c == '-' || c == '_' || c == '.' })
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	if len(parts) == 0 {
		return slug
	}
	return strings.Join(parts, " ")
}
