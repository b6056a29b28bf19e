# frozen_string_literal: true

# A configuration whose plugins (`require:` / `plugins:` gems) are not installed fails in RuboCop with the bare
# LoadError of the first one. This says what to do instead: every missing gem, how to install them, and whether
# the rest of the configuration loads without them.
class MissingPlugins < StandardError; end

module Plugins
  module_function

  # The features a config file asks for (`require:` and, in newer RuboCop, `plugins:`), local paths left out.
  def wanted(config_file)
    doc = YAML.safe_load(File.read(config_file), permitted_classes: [Regexp, Symbol], aliases: true) || {}
    %w[require plugins].flat_map { |key| Array(doc[key]) }
                       .map { |entry| entry.is_a?(Hash) ? entry.keys.first.to_s : entry.to_s }
                       .reject { |name| name.start_with?('.', '/') }
  rescue StandardError
    []
  end

  # As RuboCop's FeatureLoader looks for it: the name, then with dashes as slashes (rubocop-foo: rubocop/foo).
  def installed?(feature)
    [feature, feature.tr('-', '/')].uniq.any? do |name|
      require name
      true
    rescue LoadError
      false
    end
  end

  # nil when the config loads with the missing features skipped, else what else is wrong with it.
  def rest_problem(config_file, missing)
    loader = RuboCop::FeatureLoader.singleton_class
    loader.alias_method(:mcq_original_load, :load)
    loader.define_method(:load) do |config_directory_path:, feature:|
      missing.include?(feature) ? nil : mcq_original_load(config_directory_path: config_directory_path, feature: feature)
    end
    RuboCop::ConfigLoader.load_file(config_file)
    nil
  rescue StandardError, ScriptError => e
    e.message.lines.first.to_s.strip
  ensure
    loader.alias_method(:load, :mcq_original_load)
    loader.send(:remove_method, :mcq_original_load)
  end

  # The error to report for a LoadError of a plugin, or nil when it is not one.
  def explain(error, config_file)
    return nil unless error.is_a?(LoadError) && config_file && File.file?(config_file)

    missing = wanted(config_file).reject { |feature| installed?(feature) }
    return nil if missing.empty?

    name = File.basename(config_file)
    gems = missing.join(', ')
    problem = rest_problem(config_file, missing)
    rest = problem ? "; #{name} has another problem too: #{problem}" : "; the rest of #{name} loads without them"
    MissingPlugins.new(
      "#{name} requires RuboCop plugins that are not installed: #{gems}. Install them with `bundle install` " \
      "(with #{missing.length == 1 ? 'the gem' : 'each gem'} in the Gemfile) or `gem install #{missing.join(' ')}`#{rest}"
    )
  end
end
