package main

import (
	"math"
	"strings"

	"github.com/trawlhq/trawl/bench/seed"
)

// vocabulary draws post texts: common words, business words and a long
// tail of rare ones, each with a Zipf law, and topical terms (topicalTerms,
// most frequent first), with which each post is mostly about one or two
// subjects it mentions several times, sometimes as hashtags.
type vocabulary struct {
	common, business, tail []string
	commonZ, businessZ     zipf
	tailZ, topicalZ        zipf
}

// The share of each kind of word in a text.
const (
	shareCommon   = 0.50
	shareBusiness = 0.28
	shareTail     = 0.18 // the rest is topical terms
	// shareSubject of the topical words are the post's subjects.
	shareSubject = 0.8
	tailWords    = 50_000
)

func newVocabulary() *vocabulary {
	v := &vocabulary{common: strings.Fields(commonWords), business: strings.Fields(businessWords)}
	listed, known := map[string]bool{}, map[string]bool{}
	for _, list := range [][]string{v.common, v.business, topicalTerms} {
		for _, w := range list {
			if listed[w] {
				panic("bench vocabulary: " + w + " listed twice")
			}
			listed[w] = true
			for _, part := range strings.Fields(w) {
				known[part] = true
			}
		}
	}
	// The long tail: made-up words of two or three syllables, none of
	// them a listed word or a part of a topical phrase.
	space := uint64(85 * 85 * 86)
	for i := 0; len(v.tail) < tailWords; i++ {
		w := syllables(int(seed.Mix(uint64(i)) % space))
		if !known[w] {
			known[w] = true
			v.tail = append(v.tail, w)
		}
	}
	v.commonZ = newZipf(len(v.common), 1.0)
	v.businessZ = newZipf(len(v.business), 1.0)
	v.tailZ = newZipf(len(v.tail), 1.0)
	v.topicalZ = newZipf(len(topicalTerms), 0.9)
	return v
}

func syllables(i int) string {
	const consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
	n := len(consonants) * len(vowels)
	var sb strings.Builder
	k := 2
	if i >= n*n {
		k, i = 3, i-n*n
	}
	for range k {
		s := i % n
		i /= n
		sb.WriteByte(consonants[s%len(consonants)])
		sb.WriteByte(vowels[s/len(consonants)])
	}
	if i%3 == 1 {
		sb.WriteByte('n')
	}
	return sb.String()
}

// text writes a post: sentences of 6 to 20 words, about 90 words in all
// (log-normal), in paragraphs, sometimes with an emoji or hashtags.
func (v *vocabulary) text(r *rng) string {
	subjects := []int{v.topicalZ.sample(r)}
	if r.float() < 0.4 {
		subjects = append(subjects, v.topicalZ.sample(r))
	}
	words := max(12, min(400, int(math.Exp(4.45+0.5*r.norm()))))
	var sb strings.Builder
	sentence, sentences := 0, 0
	for i := range words {
		var w string
		switch x := r.float(); {
		case x < shareCommon:
			w = v.common[v.commonZ.sample(r)]
		case x < shareCommon+shareBusiness:
			w = v.business[v.businessZ.sample(r)]
		case x < shareCommon+shareBusiness+shareTail:
			w = v.tail[v.tailZ.sample(r)]
		default:
			t := v.topicalZ.sample(r)
			if r.float() < shareSubject {
				t = subjects[r.intn(len(subjects))]
			}
			w = v.spell(r, t)
		}
		if sentence == 0 {
			if i > 0 {
				sb.WriteString(v.end(r, &sentences))
			}
			sentence = 6 + r.intn(15)
			w = capitalize(w)
		} else {
			if r.float() < 0.06 {
				sb.WriteByte(',')
			}
			sb.WriteByte(' ')
		}
		sb.WriteString(w)
		sentence--
	}
	sb.WriteByte('.')
	if r.float() < 0.45 {
		sb.WriteString("\n\n")
		tags := 1 + r.intn(4)
		for i := range tags {
			t := v.topicalZ.sample(r)
			if i < len(subjects) {
				t = subjects[i]
			}
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(hashtag(t))
		}
	}
	return sb.String()
}

// end closes a sentence, sometimes with an emoji or a paragraph break.
func (v *vocabulary) end(r *rng, sentences *int) string {
	*sentences++
	end := "."
	switch x := r.float(); {
	case x < 0.08:
		end = "!"
	case x < 0.12:
		end = "?"
	case x < 0.17:
		end = ". " + emojis[r.intn(len(emojis))]
	}
	if *sentences%3 == 0 {
		return end + "\n\n"
	}
	return end + " "
}

// spell writes topical term t as people do: acronyms often in capitals,
// sometimes as a hashtag.
func (v *vocabulary) spell(r *rng, t int) string {
	term := topicalTerms[t]
	if r.float() < 0.12 {
		return hashtag(t)
	}
	if s, ok := displayForms[term]; ok && r.float() < 0.6 {
		return s
	}
	return term
}

func hashtag(t int) string {
	term := topicalTerms[t]
	if s, ok := displayForms[term]; ok {
		term = s
	}
	return "#" + strings.ReplaceAll(term, " ", "")
}

func capitalize(w string) string {
	if w != "" && w[0] >= 'a' && w[0] <= 'z' {
		return string(w[0]-'a'+'A') + w[1:]
	}
	return w
}

// commonWords, most frequent first.
const commonWords = `the to and a of in is for that you it on with we this our are be i your have not at as but can
from more what about they all how my will so one just do if when who their it's was an or by out up like get don't
there been has make them now into here only us most some than no over see every also where why much any these those
first need know want think way even because then still really very too after before while through many other each
same both few own again never always often something nothing everyone someone things thing right last next good best
better lot let take give keep start stop try tell ask said says going doing being had did would could should might
must may shall its which whom whose yes well back down off under between during without within against among around
ever yet already almost enough quite rather less least far long short high low big small little old young`

// businessWords, most frequent first.
const businessWords = `team customers growth work people business company product market year today week month
quarter great help build building learn lessons results revenue strategy process impact value future world industry
role experience insights excited proud happy share thanks congratulations launch platform solution tools teams
success data time day days goals plan plans focus clients client partners partner journey story stories community
leaders manager managers skills career opportunity opportunities challenge challenges problem problems questions
question answer conversation conversations meeting meetings call calls feedback idea ideas change changes culture
mindset performance quality speed scale scaling cost costs budget budgets price numbers metrics targets target
forecast report reports dashboard deal deals contract contracts renewal buyer buyers seller sellers users user
service services software technology tech innovation digital online content post posts article event events panel
session keynote conference summit webinars demo demos trial pilot rollout release features feature update updates
roadmaps launchpad teammates colleagues boss founder ceo investors board office hybrid remote travel city cities
global local region regions europe america asia london york berlin paris sydney toronto singapore dubai
morning afternoon evening weekend friday monday holiday summer winter spring autumn coffee lunch dinner
energy health family friends kids life balance hope love gratitude humble honored thrilled delighted grateful
announce announcing welcome joining joined hired promoted promotion anniversary milestone celebrate celebrating
win wins won lose lost loss mistakes failure failures fail learnings tips advice playbook framework frameworks
template templates checklist guide lesson rules secret secrets truth myth myths reality simple simply hard easy
fast slow quick important critical key main clear worse bigger smaller higher lower faster stronger
smarter efficient effective productive profitable sustainable scalable reliable secure modern traditional`

// topicalTerms are what topics track, most frequent first.
var topicalTerms = []string{
	"ai", "hiring", "saas", "b2b", "leadership", "sales", "marketing", "startups", "founders", "pipeline",
	"genai", "automation", "fundraising", "product management", "customer success", "remote work",
	"go to market", "gtm", "demand gen", "linkedin ads", "seo", "content marketing", "llm", "agents", "hubspot",
	"salesforce", "personal branding", "recruiting", "layoffs", "churn", "pricing", "enterprise sales",
	"analytics", "cloud", "cybersecurity", "fintech", "ecommerce", "sales enablement", "abm", "prospecting",
	"crm", "negotiation", "onboarding", "productivity", "machine learning", "open source", "devops",
	"kubernetes", "aws", "python", "outbound", "data engineering", "observability", "security", "compliance",
	"gdpr", "soc 2", "payments", "martech", "adtech", "healthtech", "edtech", "climate", "sustainability",
	"esg", "supply chain", "logistics", "manufacturing", "real estate", "proptech", "revops", "insurance",
	"insurtech", "banking", "crypto", "web3", "blockchain", "no code", "workflow", "zapier", "notion", "slack",
	"customer experience", "cx", "nps", "cold email", "support", "chatbot", "conversational ai",
	"prompt engineering", "rag", "vector database", "mlops", "sre", "api", "sdr", "integrations",
	"partnerships", "channel sales", "resellers", "smb", "mid market", "land and expand", "discovery call",
	"objection handling", "sales ops", "cold calling", "sequences", "deliverability", "email marketing",
	"paid social", "attribution", "marketing ops", "bizops", "finops", "cfo", "cro", "cmo", "ipo",
	"acquisition", "merger", "bootstrapping", "profitability", "unit economics", "cac", "ltv", "burn rate",
	"runway", "series a", "seed round", "venture capital", "angel investing", "freemium", "self serve",
	"activation", "retention", "expansion revenue", "upsell", "renewals", "quota", "commission", "forecasting",
	"deal desk", "cpq", "icp", "personas", "positioning", "messaging", "brand", "thought leadership",
	"newsletter", "podcast", "webinar", "community led growth", "developer relations", "devrel", "ux",
	"design systems", "figma", "accessibility", "mobile", "ios", "android", "react", "javascript", "typescript",
	"golang", "rust", "java", "dbt", "snowflake", "databricks", "bigquery", "postgres", "data quality",
	"data governance", "privacy", "identity", "zero trust", "ransomware", "incident response", "soc",
	"pen testing", "talent", "employer branding", "diversity", "inclusion", "mental health", "burnout",
	"four day week", "internship", "mentorship", "career change", "job search", "resume", "interviewing",
	"upskilling", "reskilling", "future of work", "okrs", "plg", "roadmap", "product discovery",
	"experimentation", "ab testing", "growth hacking", "conversion rate", "landing pages", "copywriting",
	"video marketing", "influencer marketing", "ugc", "social selling", "sales navigator", "intent data",
	"product led growth", "lead scoring", "lead generation", "enrichment", "data enrichment", "gong",
	"outreach", "apollo", "clay", "zoominfo", "6sense", "marketo", "pardot", "ai sdr", "sales automation",
	"revenue intelligence", "call recording", "conversation intelligence", "win rate", "sales cycle",
	"pipeline generation", "pipeline coverage", "arr", "mrr", "nrr", "gross margin", "board meeting", "exit",
	"secondary", "cap table", "esop", "tender offer", "due diligence", "m and a",
}

// displayForms are how people often write some terms.
var displayForms = map[string]string{
	"ai": "AI", "saas": "SaaS", "b2b": "B2B", "crm": "CRM", "genai": "GenAI", "revops": "RevOps", "gtm": "GTM",
	"seo": "SEO", "llm": "LLM", "abm": "ABM", "sdr": "SDR", "aws": "AWS", "gdpr": "GDPR", "esg": "ESG",
	"cx": "CX", "nps": "NPS", "rag": "RAG", "mlops": "MLOps", "sre": "SRE", "api": "API", "smb": "SMB",
	"cfo": "CFO", "cro": "CRO", "cmo": "CMO", "ipo": "IPO", "cac": "CAC", "ltv": "LTV", "plg": "PLG",
	"cpq": "CPQ", "icp": "ICP", "ux": "UX", "okrs": "OKRs", "arr": "ARR", "mrr": "MRR", "nrr": "NRR",
	"hubspot": "HubSpot", "salesforce": "Salesforce", "ai sdr": "AI SDR", "ugc": "UGC", "soc": "SOC",
	"devrel": "DevRel", "ios": "iOS", "figma": "Figma", "notion": "Notion", "slack": "Slack", "zapier": "Zapier",
	"python": "Python", "golang": "Golang", "rust": "Rust", "react": "React", "snowflake": "Snowflake",
	"dbt": "dbt", "bigquery": "BigQuery", "postgres": "Postgres", "gong": "Gong", "clay": "Clay",
	"apollo": "Apollo", "zoominfo": "ZoomInfo", "marketo": "Marketo", "pardot": "Pardot", "soc 2": "SOC 2",
}

var (
	firstNames = []string{"Ana", "Ben", "Chloé", "Dev", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi",
		"Luca", "Maya", "Noah", "Olga", "Priya", "Quentin", "Rosa", "Sven", "Tara", "Uma", "Victor", "Wen", "Xavier",
		"Yara", "Zoe", "Aisha", "Bruno", "Carmen", "Diego", "Emma", "Felix", "Giulia", "Hannah", "Ivan", "Julia",
		"Karan", "Lena", "Mateo", "Nadia", "Oscar", "Paula", "Rahul", "Sara", "Tom", "Valentina", "William", "Yusuf",
		"Amara", "Chen", "Daniel", "Fatima", "Gabriel", "Hana", "Isabel", "James", "Kenji", "Laura", "Mohammed", "Nina"}
	lastNames = []string{"Silva", "Okafor", "Müller", "Tanaka", "Kowalski", "Haddad", "Nguyen", "García", "Johansson",
		"Rossi", "Patel", "Dubois", "Kim", "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis",
		"Martínez", "Hernández", "López", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
		"Lee", "Perez", "Thompson", "White", "Harris", "Sánchez", "Clark", "Ramírez", "Lewis", "Robinson", "Schmidt",
		"Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann", "Sharma", "Singh",
		"Kumar", "Gupta", "Wang", "Li", "Zhang", "Liu", "Chen", "Yamamoto", "Sato", "Suzuki", "Cohen", "Levi"}
	// roles, most frequent first.
	roles = []string{"Software Engineer", "Account Executive", "Founder", "Co-Founder & CEO", "Sales Manager",
		"Marketing Manager", "Product Manager", "Recruiter", "Consultant", "Business Development Representative",
		"Sales Development Representative", "Customer Success Manager", "Data Scientist", "Data Analyst",
		"Project Manager", "Operations Manager", "Account Manager", "Head of Sales", "VP Sales", "VP Marketing",
		"Chief Revenue Officer", "RevOps Manager", "Revenue Operations Manager", "Sales Operations Analyst",
		"Growth Marketer", "Content Marketing Manager", "Demand Generation Manager", "CTO", "CFO", "COO", "CMO",
		"Engineering Manager", "Product Designer", "UX Designer", "HR Manager", "Talent Acquisition Specialist",
		"Financial Analyst", "Controller", "Solutions Engineer", "Sales Engineer", "Partner Manager",
		"Channel Manager", "Enterprise Account Executive", "Mid-Market Account Executive", "SDR Manager",
		"Director of Sales", "Director of Marketing", "Director of Engineering", "Product Marketing Manager",
		"Brand Manager", "Social Media Manager", "Copywriter", "Student", "Intern", "Teacher", "Nurse", "Lawyer",
		"Accountant", "Architect", "Investor", "Partner", "Managing Director", "General Manager", "Board Member",
		"Advisor", "Freelancer", "Coach", "Researcher", "Professor", "DevOps Engineer", "Site Reliability Engineer",
		"Security Engineer", "Data Engineer", "Machine Learning Engineer", "Customer Support Specialist",
		"Office Manager", "Executive Assistant", "Procurement Manager", "Supply Chain Manager", "Business Analyst",
		"Program Manager", "Operations Analyst", "Head of Growth", "Head of RevOps", "Head of Marketing",
		"Head of Customer Success", "VP Engineering", "VP Product", "Chief of Staff", "Founder & CEO"}
	seniorities = []string{"Engineer", "Manager", "Analyst", "Designer", "Executive", "Scientist", "Specialist",
		"Marketer", "Representative", "Recruiter", "Consultant"}
	regions   = []string{"EMEA", "DACH", "North America", "APAC", "LATAM", "Nordics", "UK&I", "Benelux"}
	headlines = []string{"Helping B2B teams grow revenue", "Building the future of work", "Ex-Google",
		"Open to work", "Speaker and author", "Angel investor", "Turning data into decisions",
		"Helping founders scale outbound", "Writing about leadership", "Dad, runner, coffee lover"}
	industries = []string{"Software Development", "IT Services and IT Consulting", "Financial Services",
		"Marketing Services", "Staffing and Recruiting", "Hospitals and Health Care", "Technology, Information and Internet",
		"Business Consulting and Services", "Advertising Services", "Computer and Network Security", "Retail",
		"Manufacturing", "Education", "Higher Education", "Banking", "Insurance", "Real Estate", "Telecommunications",
		"Truck Transportation", "Construction", "Venture Capital and Private Equity Principals", "Non-profit Organizations",
		"Government Administration", "Pharmaceutical Manufacturing", "Biotechnology Research", "Media Production",
		"E-Learning Providers", "Wellness and Fitness Services", "Food and Beverage Services", "Renewable Energy"}
	// countries, ISO 3166-1 alpha-2, most frequent first.
	countries = []string{"US", "IN", "GB", "BR", "CA", "DE", "FR", "AU", "NL", "ES", "IT", "MX", "SE", "CH", "SG",
		"IE", "AE", "PL", "BE", "DK", "NO", "FI", "AT", "PT", "IL", "ZA", "NG", "AR", "CO", "CL", "JP", "KR", "TR",
		"PH", "ID", "MY", "NZ", "EG", "KE", "RO"}
	companyPrefixes = []string{"North", "Blue", "Bright", "Acme", "Nova", "Quantum", "Apex", "Silver", "Red", "Green",
		"Iron", "Pixel", "Cloud", "Data", "Hyper", "Omni", "Prime", "Summit", "Vertex", "Stellar", "Orbit", "Cedar",
		"Maple", "Oak", "Pine", "River", "Lake", "Harbor", "Beacon", "Signal", "Vector", "Matrix", "Fusion", "Atlas",
		"Zenith", "Pulse", "Spark", "Falcon", "Eagle", "Lion", "Tiger", "Wolf", "Fox", "Bear", "Swift", "Rapid",
		"Clear", "True", "Bold", "Brave", "Smart", "Wise", "Keen", "Able", "Core", "Edge", "Peak", "Crest", "Ridge",
		"Stone", "Rock", "Granite", "Copper", "Gold", "Amber", "Coral", "Indigo", "Violet", "Scarlet", "Azure",
		"Polar", "Solar", "Lunar", "Terra", "Aero", "Astro", "Nimbus", "Vivid", "Lumen", "Echo"}
	companySuffixes = []string{"Labs", "Systems", "Analytics", "Software", "Health", "Capital", "Logistics", "AI",
		"Cloud", "Works", "Group", "Partners", "Media", "Bank", "Energy", "Robotics", "Security", "Networks",
		"Digital", "Ventures", "Consulting", "Solutions", "Technologies", "Dynamics", "Industries", "Holdings",
		"Studio", "Foods", "Motors", "Pharma", "Bio", "Insurance", "Realty", "Learning", "Retail", "Payments",
		"Data", "Devices", "Mobility", "Commerce", "Finance", "Markets", "Labs Inc", "HQ", "Hub", "Stack", "Ops",
		"Signals", "Metrics", "Insights", "Connect", "Link", "Flow", "Forge", "Craft", "Scale", "Growth", "Revenue",
		"Sales", "Marketing", "People", "Talent", "Health Systems", "Care", "Travel", "Games", "Sports", "Fashion",
		"Home", "Legal"}
	emojis        = []string{"🚀", "🙌", "💡", "👇", "🔥", "✅", "📈", "🎉", "🤝", "👀"}
	reactionTypes = []string{"LIKE", "LIKE", "LIKE", "LIKE", "LIKE", "LIKE", "LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION", "ENTERTAINMENT"}
	commentTexts  = []string{"Great post, thanks for sharing!", "Couldn't agree more.", "This is spot on.",
		"Congrats to the whole team!", "We saw the same after moving our SDRs to intent signals.",
		"Curious how you measured that?", "Saving this for later.", "Well said.", "Love this framework.",
		"What tools are you using for this?", "100% this.", "Thanks for the insights!",
		"Interesting take, but I think it depends on the ICP.", "Would love to chat about this.",
		"Agreed, pipeline hygiene matters more than volume.", "Bookmarking this one."}
)
