package sandbox

// Topic indexes; people's titles point at the topics they post about most.
const (
	tSalesAuto = iota
	tRevOps
	tColdEmail
	tAIAgents
	tCRM
	tPLG
	tHiring
	tFundraising
	tDevTools
	tSecurity
	tMarketing
	tCustomerSuccess
	tData
	tRemote
	tLLM
)

// topic is a theme a sales or growth team would monitor. Keywords appear verbatim in post text
// (so keyword searches find them); Sentences use {kw} for a keyword of the topic.
type topic struct {
	Name      string
	Keywords  []string
	Hashtags  []string
	Sentences []string
	Tools     []string // product-ish nouns mentioned in passing
}

var topics = []topic{
	tSalesAuto: {"sales automation", []string{"sales automation", "outbound", "sequences", "pipeline", "automation"},
		[]string{"SalesAutomation", "Outbound", "Sales"},
		[]string{"We rebuilt our {kw} playbook this quarter and reply rates doubled.",
			"Hot take: most {kw} fails because nobody owns the data.",
			"Three things I wish I knew before scaling {kw}.",
			"Our {kw} stack is finally boring, which is exactly what you want.",
			"If your {kw} needs a spreadsheet to explain it, it is too complex."},
		[]string{"Outreach", "Salesloft", "Apollo", "Clay"}},
	tRevOps: {"revenue operations", []string{"RevOps", "revenue operations", "forecasting", "pipeline", "attribution"},
		[]string{"RevOps", "RevenueOperations", "GTM"},
		[]string{"{kw} is the team that makes everyone else look good.",
			"Spent the week cleaning up {kw} dashboards. Worth it.",
			"Good {kw} starts with one definition of a qualified lead.",
			"Our board deck got shorter once {kw} owned the numbers.",
			"What is the one {kw} metric you check every Monday?"},
		[]string{"HubSpot", "Salesforce", "Looker", "Gong"}},
	tColdEmail: {"cold email", []string{"cold email", "deliverability", "open rates", "reply rate", "personalization"},
		[]string{"ColdEmail", "Deliverability", "LeadGen"},
		[]string{"Cold email is not dead, lazy {kw} is.",
			"We tested 40 subject lines; {kw} beat clever every time.",
			"Warm up your domains before you blame {kw}.",
			"The best {kw} tip I know: write like a human.",
			"Our {kw} went from 2% to 9% after we cut the template in half."},
		[]string{"Lemlist", "Instantly", "Smartlead", "Gmail"}},
	tAIAgents: {"AI agents", []string{"AI agents", "agentic", "AI SDR", "autonomous agents", "copilots"},
		[]string{"AIAgents", "AI", "Agents"},
		[]string{"Everyone is shipping {kw}; few are measuring them.",
			"We let {kw} handle research and kept humans on the call.",
			"The hard part of {kw} is not the model, it is the workflow.",
			"{kw} will not replace reps, but reps using them will replace reps.",
			"Shipped our first {kw} to production today. Lessons inside."},
		[]string{"OpenAI", "Anthropic", "LangChain", "Zapier"}},
	tCRM: {"CRM", []string{"CRM", "CRM hygiene", "data quality", "enrichment", "lead scoring"},
		[]string{"CRM", "SalesOps", "DataQuality"},
		[]string{"Your {kw} is only as good as the last person who updated it.",
			"Migrated our {kw} in a weekend. Do not try this at home.",
			"Nobody budgets for {kw}, everyone pays for it later.",
			"Quick poll: who actually trusts their {kw}?",
			"We deleted 30% of our {kw} records and pipeline got healthier."},
		[]string{"Salesforce", "HubSpot", "Pipedrive", "Attio"}},
	tPLG: {"product-led growth", []string{"product-led growth", "PLG", "activation", "free trial", "onboarding"},
		[]string{"PLG", "ProductLedGrowth", "SaaS"},
		[]string{"{kw} without sales is a hobby; sales without {kw} is expensive.",
			"We moved the aha moment to minute two and {kw} numbers jumped.",
			"The best {kw} teams obsess over the first session.",
			"{kw} is a go-to-market motion, not a pricing page.",
			"Our {kw} funnel leaked at the invite step. Fixed it with one email."},
		[]string{"Amplitude", "Mixpanel", "Pendo", "Intercom"}},
	tHiring: {"hiring", []string{"hiring", "we're hiring", "job opening", "recruiting", "talent"},
		[]string{"Hiring", "JobOpening", "Careers"},
		[]string{"We are {kw} across sales and engineering. DMs open.",
			"Great {kw} starts with a job post that tells the truth.",
			"{kw} tip: reply to every candidate, even with a no.",
			"Our team doubled this year; {kw} never stops.",
			"Looking for people who love {kw} problems as much as we do."},
		[]string{"Greenhouse", "Lever", "Ashby", "Workable"}},
	tFundraising: {"fundraising", []string{"fundraising", "seed round", "Series A", "investors", "venture capital"},
		[]string{"Fundraising", "Startups", "VentureCapital"},
		[]string{"Closed our {kw} today. Thank you to everyone who believed early.",
			"{kw} lesson: the best pitch is a customer quote.",
			"We talked to 60 {kw} folks before the first yes.",
			"Thoughts on the {kw} market this quarter: slower, but real.",
			"Advice for first-time founders on {kw}: start before you need it."},
		[]string{"Sequoia", "a16z", "Y Combinator", "Index"}},
	tDevTools: {"developer tools", []string{"developer tools", "devtools", "API", "open source", "CI/CD"},
		[]string{"DevTools", "OpenSource", "DeveloperExperience"},
		[]string{"Good {kw} disappear into the workflow.",
			"We open sourced our {kw} and the issues taught us more than any survey.",
			"The best {kw} docs start with a copy-paste example.",
			"Shipping {kw} is easy; getting developers to trust them is hard.",
			"Spent the day profiling our {kw}. Found a 40x win."},
		[]string{"GitHub", "Go", "Kubernetes", "Postgres"}},
	tSecurity: {"cybersecurity", []string{"cybersecurity", "zero trust", "SOC 2", "phishing", "security"},
		[]string{"Cybersecurity", "InfoSec", "ZeroTrust"},
		[]string{"{kw} is a sales feature now; buyers ask in the first call.",
			"We finished {kw} and learned where our real risks are.",
			"Reminder: {kw} training beats {kw} tooling.",
			"The best {kw} teams say yes, safely.",
			"Another week, another {kw} incident report. Patch your stuff."},
		[]string{"Okta", "CrowdStrike", "Vanta", "Cloudflare"}},
	tMarketing: {"B2B marketing", []string{"demand generation", "B2B marketing", "content marketing", "webinar", "brand"},
		[]string{"B2BMarketing", "DemandGen", "ContentMarketing"},
		[]string{"{kw} that sales actually uses is rare and precious.",
			"Our best {kw} asset this year was a customer story.",
			"Stop gating your {kw}; start measuring who reads it.",
			"{kw} is a long game with short feedback loops.",
			"Ran our first {kw} experiment with no budget. Results inside."},
		[]string{"LinkedIn", "Webflow", "HubSpot", "Semrush"}},
	tCustomerSuccess: {"customer success", []string{"customer success", "churn", "retention", "onboarding", "NPS"},
		[]string{"CustomerSuccess", "Retention", "SaaS"},
		[]string{"{kw} is revenue, not a support queue.",
			"We cut {kw} problems by calling every new customer in week one.",
			"The leading indicator of {kw} is silence.",
			"Our {kw} team now owns expansion, and it works.",
			"One question that predicts {kw}: did they invite a colleague?"},
		[]string{"Gainsight", "Vitally", "Zendesk", "Intercom"}},
	tData: {"data engineering", []string{"data engineering", "data warehouse", "dbt", "reverse ETL", "analytics"},
		[]string{"DataEngineering", "Analytics", "ModernDataStack"},
		[]string{"{kw} is plumbing; nobody notices until it leaks.",
			"Moved our {kw} to one warehouse and meetings got shorter.",
			"The hardest {kw} problem is naming things.",
			"Our {kw} costs dropped 60% after we deleted unused models.",
			"Hot take: most {kw} teams need fewer tools, not more."},
		[]string{"Snowflake", "BigQuery", "dbt", "Fivetran"}},
	tRemote: {"remote work", []string{"remote work", "remote-first", "async", "distributed team", "hybrid"},
		[]string{"RemoteWork", "FutureOfWork", "Async"},
		[]string{"{kw} works when writing is a first-class skill.",
			"Three years {kw} and our retention has never been better.",
			"The secret of {kw} is fewer, better meetings.",
			"{kw} is not about location, it is about trust.",
			"Our {kw} handbook is public. Steal what helps."},
		[]string{"Slack", "Notion", "Zoom", "Loom"}},
	tLLM: {"generative AI", []string{"generative AI", "LLM", "GPT", "prompt engineering", "RAG"},
		[]string{"GenAI", "LLM", "MachineLearning"},
		[]string{"We put an {kw} in front of our docs and tickets dropped 20%.",
			"{kw} demos are easy; {kw} evals are the real work.",
			"Every team needs one person who reads {kw} papers.",
			"Our {kw} bill taught us to cache everything.",
			"What is your favourite {kw} use case that is not a chatbot?"},
		[]string{"OpenAI", "Mistral", "Hugging Face", "Llama"}},
}

// topicWeights: how often each topic appears in the public stream.
var topicWeights = []int{10, 8, 8, 10, 8, 6, 8, 5, 6, 5, 6, 4, 4, 3, 7}

// Sentence frames for non-English posts; the keyword stays in English, as it often does.
var foreignSentences = map[string][]string{
	"de": {"Wir haben heute viel über {kw} gelernt.", "Ehrlich gesagt wird {kw} oft unterschätzt.",
		"Unser Team testet gerade {kw} und die Ergebnisse sind spannend."},
	"fr": {"Nous avons beaucoup appris sur {kw} cette semaine.", "Franchement, {kw} est souvent sous-estimé.",
		"Notre équipe teste {kw} et les résultats sont prometteurs."},
	"es": {"Esta semana aprendimos mucho sobre {kw}.", "Sinceramente, {kw} está infravalorado.",
		"Nuestro equipo está probando {kw} y los resultados son buenos."},
	"pt": {"Aprendemos muito sobre {kw} esta semana.", "Sinceramente, {kw} é subestimado.",
		"Nosso time está testando {kw} e os resultados são ótimos."},
	"nl": {"We hebben deze week veel geleerd over {kw}.", "Eerlijk gezegd wordt {kw} onderschat.",
		"Ons team test nu {kw} en de resultaten zijn goed."},
}

var postLangs = []string{"en", "de", "fr", "es", "pt", "nl"}

var postLangWeights = []int{80, 5, 4, 5, 3, 3}

var closers = []string{"Thoughts?", "Curious what others think.", "More soon.", "Agree or disagree?",
	"What would you add?", "", "", ""}

var replyOpeners = []string{"Totally agree.", "Strong point.", "We saw the same thing.", "Not sure I agree, but",
	"This is so true.", "Great thread."}

var reactionTypes = []string{"LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION", "ENTERTAINMENT"}

var reactionWeights = []int{70, 10, 6, 6, 5, 3}

var commentTexts = []string{"Great post, thanks for sharing!", "This resonates a lot with our team.",
	"Could not agree more.", "Interesting take. How did you measure it?", "Saving this for later.",
	"We tried something similar last year with mixed results.", "Congrats to the whole team!",
	"What tools are you using for this?", "Spot on.", "Love this perspective."}

var sources = []string{"Twitter Web App", "Twitter for iPhone", "Twitter for Android", "Buffer", "Hootsuite Inc."}

func weighted(r *rng, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.intn(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}
