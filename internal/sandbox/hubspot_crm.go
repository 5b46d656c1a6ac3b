package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HubSpot's CRM objects API (v3), in memory: each token is its own portal
// holding contacts, companies, notes and tasks, with their associations.
// Faults follow the sandbox's conventions: a token starting "ratelimited"
// always gets HubSpot's 429; a record key (email, domain, name, note body,
// task subject) starting "flaky-" gets one 429 and then succeeds; an id
// starting "missing-" (or any unknown id) gets 404 OBJECT_NOT_FOUND.

// Bounds of the simulated portals.
const (
	hubSpotMaxObjects = 10_000 // per portal, all object types together
	hubSpotMaxPortals = 1_000  // tokens; the oldest is forgotten beyond
)

// hubSpotObject is one CRM record.
type hubSpotObject struct {
	ID      string
	Type    string
	Props   map[string]string
	Created time.Time
	Updated time.Time
	// Assoc are its associations: object type → ids → type ids.
	Assoc map[string]map[string][]int
}

// hubSpotPortal is one token's CRM.
type hubSpotPortal struct {
	id      int64
	nextID  int64
	objects map[string]*hubSpotObject // by id (ids are unique across types)
	// unique finds an object by a unique value (a contact's email, a
	// company's domain) without a scan: hubSpotUniqueKey → object.
	unique map[string]*hubSpotObject
	count  int
	flaky  map[string]bool // flaky- keys already failed once
}

// hubSpotCRM holds the portals.
type hubSpotCRM struct {
	mu      sync.Mutex
	now     func() time.Time
	props   map[string][]hubSpotProperty
	portals map[string]*hubSpotPortal
	order   []string // tokens, oldest first
}

func newHubSpotCRM(now func() time.Time) *hubSpotCRM {
	return &hubSpotCRM{now: now, props: hubSpotProperties(), portals: map[string]*hubSpotPortal{}}
}

// portal returns the token's portal, making it (and forgetting the oldest
// beyond the bound). The caller holds mu.
func (c *hubSpotCRM) portal(token string) *hubSpotPortal {
	if p, ok := c.portals[token]; ok {
		return p
	}
	if len(c.order) >= hubSpotMaxPortals {
		delete(c.portals, c.order[0])
		c.order = c.order[1:]
	}
	pid := hubSpotPortalID(token)
	// Ids are numeric strings, distinct per portal and growing like HubSpot's.
	p := &hubSpotPortal{id: pid, nextID: 10_000 + int64(hashString(3, token)%90_000)*1000,
		objects: map[string]*hubSpotObject{}, unique: map[string]*hubSpotObject{}, flaky: map[string]bool{}}
	c.portals[token] = p
	c.order = append(c.order, token)
	return p
}

// hubSpotPortalID is the portal a token names, always the same one.
func hubSpotPortalID(token string) int64 {
	return int64(hashString(0, token)%90_000_000) + 10_000_000
}

// hubSpotTime is HubSpot's ISO 8601 timestamp with milliseconds.
func hubSpotTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// hubSpotRecord is the documented JSON of an object (SimplePublicObject).
type hubSpotRecord struct {
	ID           string                     `json:"id"`
	Properties   map[string]*string         `json:"properties"`
	CreatedAt    string                     `json:"createdAt"`
	UpdatedAt    string                     `json:"updatedAt"`
	Archived     bool                       `json:"archived"`
	New          *bool                      `json:"new,omitempty"` // batch upsert only
	Associations map[string]hubSpotAssocRef `json:"associations,omitempty"`
}

type hubSpotAssocRef struct {
	Results []hubSpotAssocResult `json:"results"`
}

type hubSpotAssocResult struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// defaultProps are the properties an object's answer carries unless the
// request names others.
func hubSpotDefaultProps(typ string) []string {
	switch typ {
	case "contacts":
		return []string{"createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"}
	case "companies":
		return []string{"createdate", "domain", "hs_lastmodifieddate", "hs_object_id", "name"}
	case "notes":
		return []string{"hs_createdate", "hs_lastmodifieddate", "hs_object_id"}
	}
	return []string{"hs_createdate", "hs_lastmodifieddate", "hs_object_id", "hs_task_subject"}
}

// record renders o with the named properties (the defaults when none, plus
// the ones just written when written is not nil).
func (o *hubSpotObject) record(names []string, written map[string]string) hubSpotRecord {
	if len(names) == 0 {
		names = hubSpotDefaultProps(o.Type)
	}
	props := make(map[string]*string, len(names)+len(written))
	for _, n := range names {
		if v, ok := o.Props[n]; ok {
			props[n] = &v
		} else {
			props[n] = nil
		}
	}
	for n := range written {
		v := o.Props[n]
		props[n] = &v
	}
	return hubSpotRecord{ID: o.ID, Properties: props, CreatedAt: hubSpotTime(o.Created), UpdatedAt: hubSpotTime(o.Updated)}
}

// hubSpotInvalid is one entry of a VALIDATION_ERROR's message list, as
// HubSpot embeds it ("Property values were not valid: [...]").
type hubSpotInvalid struct {
	IsValid               bool   `json:"isValid"`
	Message               string `json:"message"`
	Error                 string `json:"error"`
	Name                  string `json:"name"`
	LocalizedErrorMessage string `json:"localizedErrorMessage,omitempty"`
	PortalID              int64  `json:"portalId,omitempty"`
}

// hubSpotErrorDetail is an entry of an error body's errors array.
type hubSpotErrorDetail struct {
	Message string              `json:"message"`
	Code    string              `json:"code,omitempty"`
	In      string              `json:"in,omitempty"`
	Context map[string][]string `json:"context,omitempty"`
}

// writeHubSpotError writes HubSpot's error body.
func writeHubSpotError(w http.ResponseWriter, r *http.Request, status int, category, message string, errs []hubSpotErrorDetail) {
	body := map[string]any{"status": "error", "message": message,
		"correlationId": hubSpotCorrelationID(r.URL.Path + message), "category": category}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	writeJSON(w, status, body)
}

// writeHubSpotInvalid is the 400 VALIDATION_ERROR of invalid property values.
func writeHubSpotInvalid(w http.ResponseWriter, r *http.Request, portal int64, bad []hubSpotInvalid) {
	errs := make([]hubSpotErrorDetail, len(bad))
	for i := range bad {
		bad[i].PortalID = portal
		errs[i] = hubSpotErrorDetail{Message: bad[i].Message, Code: bad[i].Error, Context: map[string][]string{"propertyName": {bad[i].Name}}}
	}
	list, _ := json.Marshal(bad)
	writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR", "Property values were not valid: "+string(list), errs)
}

// writeHubSpotRateLimited is HubSpot's 429 with its policy and headers.
func writeHubSpotRateLimited(w http.ResponseWriter, r *http.Request, portal int64) {
	h := w.Header()
	h.Set("Retry-After", "1")
	h.Set("X-HubSpot-RateLimit-Interval-Milliseconds", "10000")
	h.Set("X-HubSpot-RateLimit-Max", "100")
	h.Set("X-HubSpot-RateLimit-Remaining", "0")
	h.Set("X-HubSpot-RateLimit-Daily", "250000")
	h.Set("X-HubSpot-RateLimit-Daily-Remaining", "249000")
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"status": "error", "message": "You have reached your ten_secondly_rolling limit.",
		"errorType": "RATE_LIMIT", "correlationId": hubSpotCorrelationID(r.URL.Path + "429"),
		"policyName": "TEN_SECONDLY_ROLLING", "groupName": fmt.Sprintf("publicapi:private-app:%d", portal),
		"category": "RATE_LIMITS",
	})
}

// flakyOnce tells whether key's first request must fail (and records it).
func (p *hubSpotPortal) flakyOnce(typ, key string) bool {
	key = strings.ToLower(key)
	if !strings.HasPrefix(key, "flaky-") || p.flaky[typ+":"+key] || len(p.flaky) >= hubSpotMaxObjects {
		return false
	}
	p.flaky[typ+":"+key] = true
	return true
}

// validate checks values written to an object of typ, as HubSpot does:
// unknown properties, read-only ones, malformed emails and numbers,
// options an enumeration lacks, unparseable datetimes.
func (c *hubSpotCRM) validate(typ string, props map[string]string) []hubSpotInvalid {
	var bad []hubSpotInvalid
	for name, v := range props {
		d, ok := c.property(typ, name)
		switch {
		case !ok:
			bad = append(bad, hubSpotInvalid{Message: fmt.Sprintf("Property \"%s\" does not exist", name), Error: "PROPERTY_DOESNT_EXIST", Name: name,
				LocalizedErrorMessage: fmt.Sprintf("Property \"%s\" does not exist", name)})
		case d.ModificationMetadata.ReadOnlyValue:
			bad = append(bad, hubSpotInvalid{Message: fmt.Sprintf("%s is a read only property; its value cannot be set.", name), Error: "READ_ONLY_VALUE", Name: name})
		case v == "":
			// Empty clears a property.
		case name == "email" && !hubSpotEmailOK(v):
			bad = append(bad, hubSpotInvalid{Message: fmt.Sprintf("Email address %s is invalid", v), Error: "INVALID_EMAIL", Name: name,
				LocalizedErrorMessage: fmt.Sprintf("Email address %s is invalid", v)})
		case d.Type == "number":
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				bad = append(bad, hubSpotInvalid{Message: fmt.Sprintf("%s was not a valid number.", v), Error: "INVALID_INTEGER", Name: name})
			}
		case d.Type == "enumeration" || d.Type == "bool":
			if !hubSpotHasOption(d, v) {
				bad = append(bad, hubSpotInvalid{Message: fmt.Sprintf("%s was not one of the allowed options: %s", v, hubSpotOptionList(d)), Error: "INVALID_OPTION", Name: name})
			}
		case d.Type == "datetime":
			if _, ok := hubSpotParseTime(v); !ok {
				bad = append(bad, hubSpotInvalid{Message: fmt.Sprintf("%s was not a valid long or ISO 8601 date.", v), Error: "INVALID_DATE", Name: name})
			}
		}
	}
	return bad
}

func (c *hubSpotCRM) property(typ, name string) (hubSpotProperty, bool) {
	for _, p := range c.props[typ] {
		if p.Name == name {
			return p, true
		}
	}
	return hubSpotProperty{}, false
}

func hubSpotEmailOK(v string) bool {
	a, err := mail.ParseAddress(v)
	return err == nil && a.Address == v && strings.Contains(v[strings.LastIndexByte(v, '@'):], ".")
}

func hubSpotHasOption(d hubSpotProperty, v string) bool {
	for _, v := range strings.Split(v, ";") {
		found := false
		for _, o := range d.Options {
			found = found || o.Value == v
		}
		if !found {
			return false
		}
	}
	return true
}

func hubSpotOptionList(d hubSpotProperty) string {
	vs := make([]string, len(d.Options))
	for i, o := range d.Options {
		vs[i] = o.Value
	}
	return "[" + strings.Join(vs, ", ") + "]"
}

// hubSpotParseTime reads a datetime value: epoch milliseconds, ISO 8601,
// or a date.
func hubSpotParseTime(v string) (time.Time, bool) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// normalize gives datetime values HubSpot's stored form (ISO 8601).
func (c *hubSpotCRM) normalize(typ string, props map[string]string) {
	for name, v := range props {
		if d, ok := c.property(typ, name); ok && d.Type == "datetime" && v != "" {
			if t, ok := hubSpotParseTime(v); ok {
				props[name] = hubSpotTime(t)
			}
		}
		if name == "email" || name == "domain" {
			props[name] = strings.ToLower(v)
		}
	}
}

// find returns the portal's object of typ whose property equals value
// (case-insensitive, as HubSpot's unique values compare).
func (p *hubSpotPortal) find(typ, property, value string) *hubSpotObject {
	if hubSpotUnique(property) {
		return p.unique[hubSpotUniqueKey(typ, property, value)]
	}
	for _, o := range p.objects {
		if o.Type == typ && strings.EqualFold(o.Props[property], value) {
			return o
		}
	}
	return nil
}

// create adds an object of typ with props (already valid); nil when the
// portal is full.
func (c *hubSpotCRM) create(p *hubSpotPortal, typ string, props map[string]string) *hubSpotObject {
	if p.count >= hubSpotMaxObjects {
		return nil
	}
	now := c.now()
	p.nextID += 1 + int64(hashN(uint64(p.nextID))%7)
	o := &hubSpotObject{ID: strconv.FormatInt(p.nextID, 10), Type: typ, Props: map[string]string{}, Created: now, Updated: now, Assoc: map[string]map[string][]int{}}
	for k, v := range props {
		o.Props[k] = v
	}
	o.Props["hs_object_id"] = o.ID
	created, modified := "createdate", "lastmodifieddate"
	switch typ {
	case "companies":
		modified = "hs_lastmodifieddate"
	case "notes", "tasks":
		created, modified = "hs_createdate", "hs_lastmodifieddate"
	}
	o.Props[created], o.Props[modified] = hubSpotTime(now), hubSpotTime(now)
	p.objects[o.ID] = o
	p.index(o, nil)
	p.count++
	return o
}

// hubSpotUnique says whether a property's values are unique per object
// type, as HubSpot keeps a contact's email and a company's domain.
func hubSpotUnique(property string) bool { return property == "email" || property == "domain" }

func hubSpotUniqueKey(typ, property, value string) string {
	return typ + "\x00" + property + "\x00" + strings.ToLower(value)
}

// index keeps p.unique up to date for o, whose unique values were old
// (nil when o is new).
func (p *hubSpotPortal) index(o *hubSpotObject, old map[string]string) {
	for _, prop := range []string{"email", "domain"} {
		if v := old[prop]; v != "" && p.unique[hubSpotUniqueKey(o.Type, prop, v)] == o {
			delete(p.unique, hubSpotUniqueKey(o.Type, prop, v))
		}
		if v := o.Props[prop]; v != "" {
			p.unique[hubSpotUniqueKey(o.Type, prop, v)] = o
		}
	}
}

// update writes props to o.
func (c *hubSpotCRM) update(p *hubSpotPortal, o *hubSpotObject, props map[string]string) {
	old := map[string]string{"email": o.Props["email"], "domain": o.Props["domain"]}
	for k, v := range props {
		o.Props[k] = v
	}
	p.index(o, old)
	o.Updated = c.now()
	modified := "hs_lastmodifieddate"
	if o.Type == "contacts" {
		modified = "lastmodifieddate"
	}
	o.Props[modified] = hubSpotTime(o.Updated)
}

// associate links a and b both ways with their default types.
func associate(a, b *hubSpotObject) []int {
	ab, ba := hubSpotAssociationType(a.Type, b.Type), hubSpotAssociationType(b.Type, a.Type)
	link := func(x, y *hubSpotObject, id int) {
		if x.Assoc[y.Type] == nil {
			x.Assoc[y.Type] = map[string][]int{}
		}
		for _, have := range x.Assoc[y.Type][y.ID] {
			if have == id {
				return
			}
		}
		x.Assoc[y.Type][y.ID] = append(x.Assoc[y.Type][y.ID], id)
	}
	link(a, b, ab)
	link(b, a, ba)
	return []int{ab, ba}
}
