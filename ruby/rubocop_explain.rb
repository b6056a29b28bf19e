# frozen_string_literal: true

# Cop explanations from RuboCop's own data: the summary (the cop's Description), its configuration as it
# resolves for a path (ConfigStore, so a folder's own .rubocop.yml applies), its autocorrection safety, the
# docs URL (`--show-docs-url`), and the description and bad/good examples of the cop's YARD comment (the
# `@example` blocks RuboCop's documentation site is generated from), read from the cop's source file.
require 'did_you_mean'

def explain_cops(store, params)
  path = params['path'] || Dir.pwd
  config = File.directory?(path) ? store.for_dir(path) : store.for_file(path)
  registry = RuboCop::Cop::Registry.global
  params.fetch('names').map { |name| explain_name(registry, config, name) }
end

def explain_name(registry, config, name)
  return explain_department(registry, config, name) if registry.department?(name) && !name.include?('/')

  cop = registry.find_by_cop_name(name) || unqualified_cop(registry, name)
  return explain_cop(cop, config) if cop

  dictionary = registry.map(&:cop_name) + registry.departments.map(&:to_s)
  { name: name, kind: name.include?('/') ? 'rule' : 'category', unknown: true,
    summary: "RuboCop has no cop or department named #{name}",
    did_you_mean: DidYouMean::SpellChecker.new(dictionary: dictionary).correct(name).first(5) }
end

def unqualified_cop(registry, name)
  matches = registry.select { |cop| cop.cop_name.split('/').last == name }
  matches.first if matches.size == 1
end

def explain_department(registry, config, name)
  cops = registry.with_department(name.to_sym).map(&:cop_name).sort
  { name: name, kind: 'category', summary: "The #{name} department: #{cops.size} cops",
    configuration: config.for_department(name).to_h, rules: cops }
end

def explain_cop(cop, config)
  cop_config = config.for_cop(cop)
  doc = cop_doc(cop)
  example = pick_example(doc[:examples], cop_config)
  {
    name: cop.cop_name, kind: 'rule', summary: cop_config['Description'] || doc[:description]&.lines&.first&.strip,
    description: doc[:description], bad_example: example&.dig(:bad), good_example: example&.dig(:good),
    configuration: cop_config.to_h.reject { |key, _| key == 'Description' },
    autocorrect: autocorrect_kind(cop, cop_config, config), docs_url: docs_url(cop, config)
  }.compact
end

def autocorrect_kind(cop, cop_config, config)
  return 'none' if !cop.support_autocorrect? || [false, 'false', 'disabled'].include?(cop_config['AutoCorrect'])
  return 'contextual' if Contextual.contextual?(cop.cop_name, config)
  return 'unsafe' if cop_config['Safe'] == false || cop_config['SafeAutoCorrect'] == false

  'safe'
end

# RuboCop's documentation site covers its own cops; a department with DocumentationBaseURL has its own.
def docs_url(cop, config)
  file, = Object.const_source_location(cop.name)
  own = config.for_department(cop.department.to_s)['DocumentationBaseURL']
  core = File.dirname(Object.const_source_location('RuboCop::Cop::Base').first)
  return unless own || file.to_s.start_with?("#{core}/")

  RuboCop::Cop::Documentation.url_for(cop, config)
end

# The comment block above the cop's class: its description and its `@example` blocks split at `# bad` and
# `# good`.
def cop_doc(cop)
  file, line = Object.const_source_location(cop.name)
  return { examples: [] } unless file && File.file?(file)

  lines = File.readlines(file)[0...(line - 1)].reverse.take_while { |l| l.match?(/^\s*#/) }.reverse
  text = lines.map { |l| l.sub(/^\s*# ?/, '').chomp }
  first_tag = text.index { |l| l.start_with?('@') } || text.size
  description = text[0...first_tag].join("\n").strip
  { description: description.empty? ? nil : description, examples: examples_of(text[first_tag..]) }
end

def examples_of(text)
  examples = []
  text.each do |l|
    if (m = l.match(/^@example\s*(.*)$/))
      examples << { title: m[1].strip, bad: [], good: [], part: nil }
    elsif l.start_with?('@')
      examples << { title: nil, bad: [], good: [], part: :skip }
    elsif (example = examples.last) && example[:part] != :skip
      code = l.sub(/^  /, '')
      if (m = code.match(/^#\s*(bad|good)\b/))
        example[:part] = m[1].to_sym
      elsif example[:part]
        example[example[:part]] << code
      end
    end
  end
  examples.select { |e| e[:title] }.map do |e|
    { title: e[:title], bad: tidy(e[:bad]), good: tidy(e[:good]) }
  end
end

def tidy(lines)
  text = lines.join("\n").strip
  text.empty? ? nil : "#{text}\n"
end

# Bad and good code from one example when one has both: untitled examples first (they show the cop itself),
# then those whose title names the resolved configuration (`EnforcedStyle: expanded`), then the rest.
def pick_example(examples, cop_config)
  matches = lambda do |e|
    key, value = e[:title].split(':', 2).map { |s| s&.strip&.sub(/\s*\(default\)\z/, '') }
    value && cop_config.key?(key) && cop_config[key].to_s == value
  end
  untitled, titled = examples.partition { |e| e[:title].empty? }
  ordered = untitled + titled.select(&matches) + titled.reject(&matches)
  both = ordered.find { |e| e[:bad] && e[:good] }
  return both if both

  { bad: ordered.find { |e| e[:bad] }&.dig(:bad), good: ordered.find { |e| e[:good] }&.dig(:good) }
end
