// Keys that do not apply to the chosen model (issue 65 item 6). A key the model never reads, set
// away from its default, would be ignored in silence, so it is an error that says so: "key 'K':
// does not apply to SELECTOR = VALUE (only to ...)". The isolation keys started the rule
// (isolation_setup.cpp); every family's keys follow it through the helpers here.
#pragma once
#include <string>

#include "host/config/config.hpp"

namespace saturn {

// True when `key` holds its parameter-table default in cfg (lists compare element by element).
bool at_default(const Config& cfg, const std::string& key);

// Throws ConfigError "SOURCE: key 'KEY': does not apply to CONTEXT".
[[noreturn]] void fail_not_applied(const Config& cfg, const std::string& key, const std::string& context);
// The same unless `key` is at its default (one point's config: the isolation keys, per technique).
void refuse_unless_default(const Config& cfg, const std::string& key, const std::string& context);

// The study's config, before its sweep is expanded: every key outside the chosen engine
// (simulation.mode), topology.kind, traffic.pattern, routing algorithm, cc.marking, cc.protocol and
// cca.enabled, and a [[traffic.flows]] list outside pattern "flows". A key set in the file or on a
// sweep axis is refused only where it applies at no point: a sweep over traffic.pattern may carry
// the hot-spot keys its "hotspot" points read (configs/default.toml does).
void check_keys_apply(const Config& cfg);

}  // namespace saturn
