#include "client/cli_suggestions.h"

#include <CLI/CLI.hpp>

#include "io/nearest_name.h"

namespace torchscan {
namespace {

const CLI::Option* FindOption(const CLI::App* app, const std::string& name) {
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent())
    if (const CLI::Option* o = a->get_option_no_throw(name); o != nullptr) return o;
  return nullptr;
}

// The long (and short) flags of `app` and the apps above it.
std::vector<std::string> FlagNames(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent())
    for (const CLI::Option* o : a->get_options()) {
      for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    }
  return names;
}

std::string Suggestion(const std::string& command, const std::string& what, const std::string& word,
                       const std::vector<std::string>& known) {
  const std::string nearest = NearestName(word, known);
  return command + ": unknown " + what + " " + word + (nearest.empty() ? "" : "; did you mean " + nearest + "?") +
         " (see `" + command + " --help`)";
}

bool LooksLikeNumber(const std::string& word) {
  return word.size() > 1 && word[0] == '-' && (std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.');
}

}  // namespace

std::string SuggestForCommandLine(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* current = &app;
  // The program's name without its folder (CLI11 sets it from argv[0]).
  std::string command = app.get_name().substr(app.get_name().find_last_of('/') + 1);
  if (command.empty()) command = "torchscan-client";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") break;
    if (word.size() > 1 && word[0] == '-' && !LooksLikeNumber(word)) {
      const size_t equals = word.find('=');
      const std::string name = word.substr(0, equals);
      const CLI::Option* option = FindOption(current, name);
      if (option == nullptr) return Suggestion(command, "flag", name, FlagNames(current));
      if (equals == std::string::npos && option->get_type_size_max() > 0) ++i;  // its value
      continue;
    }
    const std::vector<const CLI::App*> subcommands = current->get_subcommands([](const CLI::App*) { return true; });
    if (subcommands.empty()) continue;  // a positional argument (a job id, a file)
    const CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* sub : subcommands) {
      names.push_back(sub->get_name());
      if (sub->check_name(word)) next = sub;
    }
    if (next == nullptr) return Suggestion(command, "command", word, names);
    current = next;
    command += " " + next->get_name();
  }
  return "";
}

}  // namespace torchscan
