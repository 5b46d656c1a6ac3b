package sandbox

// Vocabularies for people and companies. Fictional on purpose: names are combined at random.

var firstNamesF = []string{"Emma", "Olivia", "Sophia", "Mia", "Ava", "Isabella", "Charlotte", "Amelia",
	"Harper", "Lena", "Chloe", "Nora", "Priya", "Aisha", "Yuki", "Sofia", "Camille", "Lucia", "Ines",
	"Hannah", "Sara", "Leonie", "Julia", "Maya", "Zoe", "Elena", "Ana", "Fatima", "Mei", "Grace"}

var firstNamesM = []string{"Liam", "Noah", "Oliver", "Elijah", "James", "Lucas", "Mateo", "Ethan",
	"Daniel", "Leon", "Felix", "Arjun", "Omar", "Kenji", "Hugo", "Luca", "Diego", "Tom", "Max", "Samuel",
	"Jonas", "Rafael", "David", "Ryan", "Adam", "Marco", "Ivan", "Wei", "Kofi", "Nathan"}

var lastNames = []string{"Smith", "Johnson", "Garcia", "Miller", "Brown", "Davis", "Martinez", "Lopez",
	"Wilson", "Anderson", "Taylor", "Moore", "Martin", "Lee", "Walker", "Hall", "Young", "King", "Wright",
	"Scott", "Green", "Baker", "Nelson", "Carter", "Mitchell", "Perez", "Roberts", "Turner", "Phillips",
	"Campbell", "Parker", "Evans", "Edwards", "Collins", "Stewart", "Morris", "Murphy", "Cook", "Rogers",
	"Morgan", "Peterson", "Cooper", "Reed", "Bailey", "Bell", "Kelly", "Howard", "Ward", "Cox", "Diaz",
	"Richardson", "Wood", "Watson", "Brooks", "Bennett", "Gray", "James", "Reyes", "Cruz", "Hughes",
	"Schmidt", "Muller", "Dubois", "Rossi", "Silva", "Tanaka", "Sato", "Kim", "Patel", "Singh",
	"Nguyen", "Jansen", "Novak", "Andersen", "Kowalski", "Fischer", "Moreau", "Santos", "Costa", "Weber"}

// title is a job title with its PDL-style role, sub-role and levels.
type title struct {
	Name, Role, SubRole string
	Levels              []string
	Topics              []int // topic indexes this kind of person posts about most
}

var titles = []title{
	{"VP Sales", "sales", "sales", []string{"vp"}, []int{tSalesAuto, tRevOps, tCRM}},
	{"Head of Growth", "marketing", "growth", []string{"director"}, []int{tPLG, tColdEmail, tMarketing}},
	{"SDR", "sales", "business_development", []string{"entry"}, []int{tColdEmail, tSalesAuto}},
	{"Account Executive", "sales", "sales", []string{"senior"}, []int{tSalesAuto, tCRM, tColdEmail}},
	{"RevOps Manager", "operations", "revenue_operations", []string{"manager"}, []int{tRevOps, tCRM, tData}},
	{"Founder", "founder", "founder", []string{"owner", "cxo"}, []int{tFundraising, tAIAgents, tHiring}},
	{"CTO", "engineering", "engineering", []string{"cxo"}, []int{tDevTools, tAIAgents, tSecurity}},
	{"Marketing Director", "marketing", "marketing", []string{"director"}, []int{tMarketing, tPLG, tAIAgents}},
	{"Software Engineer", "engineering", "software", []string{"senior"}, []int{tDevTools, tAIAgents, tData}},
	{"Recruiter", "human_resources", "talent", []string{"senior"}, []int{tHiring, tRemote}},
	{"CEO", "founder", "executive", []string{"cxo"}, []int{tFundraising, tHiring, tAIAgents}},
	{"Customer Success Manager", "customer_service", "customer_success", []string{"manager"}, []int{tCustomerSuccess, tCRM}},
	{"Product Manager", "product", "product_management", []string{"manager"}, []int{tPLG, tAIAgents, tDevTools}},
	{"Head of Sales", "sales", "sales", []string{"director"}, []int{tSalesAuto, tRevOps, tHiring}},
	{"Demand Generation Manager", "marketing", "demand_generation", []string{"manager"}, []int{tMarketing, tColdEmail}},
	{"Security Engineer", "engineering", "security", []string{"senior"}, []int{tSecurity, tDevTools}},
	{"Data Engineer", "engineering", "data", []string{"senior"}, []int{tData, tAIAgents}},
	{"Sales Operations Analyst", "operations", "sales_operations", []string{"entry"}, []int{tRevOps, tCRM, tData}},
	{"Chief Revenue Officer", "sales", "executive", []string{"cxo"}, []int{tRevOps, tSalesAuto, tFundraising}},
	{"Talent Acquisition Lead", "human_resources", "talent", []string{"manager"}, []int{tHiring, tRemote}},
	{"Growth Marketer", "marketing", "growth", []string{"senior"}, []int{tPLG, tMarketing, tColdEmail}},
	{"Engineering Manager", "engineering", "engineering", []string{"manager"}, []int{tDevTools, tHiring, tRemote}},
	{"Business Development Representative", "sales", "business_development", []string{"entry"}, []int{tColdEmail, tSalesAuto}},
	{"COO", "operations", "executive", []string{"cxo"}, []int{tRevOps, tHiring, tRemote}},
}

// country is a place people live and companies are registered.
type country struct {
	Code, Name string
	Cities     []string
	Langs      []string // spoken; first is the main one
}

var countries = []country{
	{"US", "United States", []string{"San Francisco", "New York", "Austin", "Boston", "Seattle", "Chicago"}, []string{"en"}},
	{"GB", "United Kingdom", []string{"London", "Manchester", "Edinburgh"}, []string{"en"}},
	{"DE", "Germany", []string{"Berlin", "Munich", "Hamburg"}, []string{"de", "en"}},
	{"FR", "France", []string{"Paris", "Lyon", "Toulouse"}, []string{"fr", "en"}},
	{"ES", "Spain", []string{"Madrid", "Barcelona", "Valencia"}, []string{"es", "en"}},
	{"NL", "Netherlands", []string{"Amsterdam", "Rotterdam", "Utrecht"}, []string{"nl", "en"}},
	{"CA", "Canada", []string{"Toronto", "Vancouver", "Montreal"}, []string{"en", "fr"}},
	{"AU", "Australia", []string{"Sydney", "Melbourne", "Brisbane"}, []string{"en"}},
	{"IN", "India", []string{"Bengaluru", "Mumbai", "Pune"}, []string{"en", "hi"}},
	{"BR", "Brazil", []string{"Sao Paulo", "Rio de Janeiro", "Belo Horizonte"}, []string{"pt", "en"}},
	{"SG", "Singapore", []string{"Singapore"}, []string{"en"}},
	{"IE", "Ireland", []string{"Dublin", "Cork"}, []string{"en"}},
	{"SE", "Sweden", []string{"Stockholm", "Gothenburg"}, []string{"sv", "en"}},
	{"IL", "Israel", []string{"Tel Aviv", "Haifa"}, []string{"he", "en"}},
	{"JP", "Japan", []string{"Tokyo", "Osaka"}, []string{"ja", "en"}},
}

// countryWeights favours the US and Europe the way a B2B audience does.
var countryWeights = []int{30, 10, 8, 6, 5, 5, 5, 4, 7, 5, 3, 3, 3, 3, 3}

var sizeBands = []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"}

var sizeWeights = []int{10, 25, 25, 15, 10, 8, 4, 3}

var industries = []string{"Computer Software", "Information Technology and Services", "Internet",
	"Marketing and Advertising", "Financial Services", "Computer and Network Security", "Staffing and Recruiting",
	"Management Consulting", "E-Learning", "Hospital and Health Care", "Retail", "Telecommunications",
	"Venture Capital and Private Equity", "Logistics and Supply Chain", "Real Estate"}

var companyPrefixes = []string{"Bright", "North", "Blue", "Quant", "Loom", "Pulse", "Signal", "Forge",
	"Nimbus", "Orbit", "Vector", "Cobalt", "Lumen", "Atlas", "Harbor", "Summit", "Clear", "Swift", "Iron",
	"Maple", "Nova", "Pixel", "Echo", "Zen", "Polar", "Crimson", "Silver", "Amber", "Cedar", "Delta",
	"Ember", "Flux", "Granite", "Helix", "Jade", "Kite", "Lattice", "Meridian", "Onyx", "Prism"}

var companySuffixes = []string{"lane", "wind", "path", "iq", "ly", "stack", "works", "base", "labs",
	"flow", "scale", "desk", "hub", "loop", "point", "grid", "sense", "ware", "bridge", "craft", "field",
	"mark", "shift", "spark", "wave", "line", "gate", "core", "pilot", "nest"}

var companyTLDs = []string{"com", "io", "ai", "co", "dev", "app"}

var languageNames = map[string]string{"en": "english", "de": "german", "fr": "french", "es": "spanish",
	"nl": "dutch", "pt": "portuguese", "hi": "hindi", "sv": "swedish", "he": "hebrew", "ja": "japanese"}

var summaryOpeners = []string{"I help B2B teams", "Building", "Obsessed with", "Helping companies with",
	"Writing about", "Operator focused on", "Curious about", "Ten years in"}
