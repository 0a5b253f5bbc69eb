/* test_chat - chat templates (sparsert.h section 14) and srt-chat's chat mode.
   The templates below are the real Jinja texts of the models named; the expected renderings were
   written from them by hand (and agree with what Jinja2 renders with Hugging Face's settings,
   trim_blocks and lstrip_blocks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"
#include "tests/tiny_model.h"

#define TMP "build/tmp/chat"

/* ---------------------------------------------------------------- the real templates */
static const char *tmpl_smollm2 =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYo"
    "u are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' "
    "+ message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %"
    "}{{ '<|im_start|>assistant\n' }}{% endif %}";
static const char *tmpl_qwen25 =
    "{%- if tools %}\n    {{- '<|im_start|>system\\n' }}\n    {%- if messages[0]['role'] == 'system' %}\n        {{"
    "- messages[0]['content'] }}\n    {%- else %}\n        {{- 'You are Qwen, created by Alibaba Cloud. You are a h"
    "elpful assistant.' }}\n    {%- endif %}\n    {{- \"\\n\\n# Tools\\n\\nYou may call one or more functions to as"
    "sist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<t"
    "ools>\" }}\n    {%- for tool in tools %}\n        {{- \"\\n\" }}\n        {{- tool | tojson }}\n    {%- endfor"
    " %}\n    {{- \"\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments "
    "within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\\"name\\\": <function-name>, \\\"arguments\\\": <a"
    "rgs-json-object>}\\n</tool_call><|im_end|>\\n\" }}\n{%- else %}\n    {%- if messages[0]['role'] == 'system' %}"
    "\n        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n    {%- else %}\n        "
    "{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }"
    "}\n    {%- endif %}\n{%- endif %}\n{%- for message in messages %}\n    {%- if (message.role == \"user\") or (m"
    "essage.role == \"system\" and not loop.first) or (message.role == \"assistant\" and not message.tool_calls) %}"
    "\n        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n    {%- elif "
    "message.role == \"assistant\" %}\n        {{- '<|im_start|>' + message.role }}\n        {%- if message.content"
    " %}\n            {{- '\\n' + message.content }}\n        {%- endif %}\n        {%- for tool_call in message.to"
    "ol_calls %}\n            {%- if tool_call.function is defined %}\n                {%- set tool_call = tool_cal"
    "l.function %}\n            {%- endif %}\n            {{- '\\n<tool_call>\\n{\"name\": \"' }}\n            {{- "
    "tool_call.name }}\n            {{- '\", \"arguments\": ' }}\n            {{- tool_call.arguments | tojson }}\n"
    "            {{- '}\\n</tool_call>' }}\n        {%- endfor %}\n        {{- '<|im_end|>\\n' }}\n    {%- elif mes"
    "sage.role == \"tool\" %}\n        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != \"tool\") %}"
    "\n            {{- '<|im_start|>user' }}\n        {%- endif %}\n        {{- '\\n<tool_response>\\n' }}\n       "
    " {{- message.content }}\n        {{- '\\n</tool_response>' }}\n        {%- if loop.last or (messages[loop.inde"
    "x0 + 1].role != \"tool\") %}\n            {{- '<|im_end|>\\n' }}\n        {%- endif %}\n    {%- endif %}\n{%- "
    "endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|im_start|>assistant\\n' }}\n{%- endif %}\n";
static const char *tmpl_llama3 =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + m"
    "essage['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<"
    "|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
static const char *tmpl_llama32 =
    "{{- bos_token }}\n{%- if custom_tools is defined %}\n    {%- set tools = custom_tools %}\n{%- endif %}\n{%- if"
    " not tools_in_user_message is defined %}\n    {%- set tools_in_user_message = true %}\n{%- endif %}\n{%- if no"
    "t date_string is defined %}\n    {%- if strftime_now is defined %}\n        {%- set date_string = strftime_now"
    "(\"%d %b %Y\") %}\n    {%- else %}\n        {%- set date_string = \"26 Jul 2024\" %}\n    {%- endif %}\n{%- en"
    "dif %}\n{%- if not tools is defined %}\n    {%- set tools = none %}\n{%- endif %}\n\n{#- This block extracts t"
    "he system message, so we can slot it into the right place. #}\n{%- if messages[0]['role'] == 'system' %}\n    "
    "{%- set system_message = messages[0]['content']|trim %}\n    {%- set messages = messages[1:] %}\n{%- else %}\n"
    "    {%- set system_message = \"\" %}\n{%- endif %}\n\n{#- System message #}\n{{- \"<|start_header_id|>system<|"
    "end_header_id|>\\n\\n\" }}\n{%- if tools is not none %}\n    {{- \"Environment: ipython\\n\" }}\n{%- endif %}"
    "\n{{- \"Cutting Knowledge Date: December 2023\\n\" }}\n{{- \"Today Date: \" + date_string + \"\\n\\n\" }}\n{%-"
    " if tools is not none and not tools_in_user_message %}\n    {{- \"You have access to the following functions. "
    "To call a function, please respond with JSON for a function call.\" }}\n    {{- 'Respond in the format {\"name"
    "\": function name, \"parameters\": dictionary of argument name and its value}.' }}\n    {{- \"Do not use varia"
    "bles.\\n\\n\" }}\n    {%- for t in tools %}\n        {{- t | tojson(indent=4) }}\n        {{- \"\\n\\n\" }}\n "
    "   {%- endfor %}\n{%- endif %}\n{{- system_message }}\n{{- \"<|eot_id|>\" }}\n\n{#- Custom tools are passed in"
    " a user message with some extra guidance #}\n{%- if tools_in_user_message and not tools is none %}\n    {#- Ex"
    "tract the first user message so we can plug it in here #}\n    {%- if messages | length != 0 %}\n        {%- s"
    "et first_user_message = messages[0]['content']|trim %}\n        {%- set messages = messages[1:] %}\n    {%- el"
    "se %}\n        {{- raise_exception(\"Cannot put tools in the first user message when there's no first user mes"
    "sage!\") }}\n{%- endif %}\n    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n    {{- \"Given the f"
    "ollowing functions, please respond with a JSON for a function call \" }}\n    {{- \"with its proper arguments "
    "that best answers the given prompt.\\n\\n\" }}\n    {{- 'Respond in the format {\"name\": function name, \"par"
    "ameters\": dictionary of argument name and its value}.' }}\n    {{- \"Do not use variables.\\n\\n\" }}\n    {%"
    "- for t in tools %}\n        {{- t | tojson(indent=4) }}\n        {{- \"\\n\\n\" }}\n    {%- endfor %}\n    {{"
    "- first_user_message + \"<|eot_id|>\"}}\n{%- endif %}\n\n{%- for message in messages %}\n    {%- if not (messa"
    "ge.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n        {{- '<|start_header_id|"
    ">' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n    {%- elif 't"
    "ool_calls' in message %}\n        {%- if not message.tool_calls|length == 1 %}\n            {{- raise_exceptio"
    "n(\"This model only supports single tool-calls at once!\") }}\n        {%- endif %}\n        {%- set tool_call"
    " = message.tool_calls[0].function %}\n        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n "
    "       {{- '{\"name\": \"' + tool_call.name + '\", ' }}\n        {{- '\"parameters\": ' }}\n        {{- tool_c"
    "all.arguments | tojson }}\n        {{- \"}\" }}\n        {{- \"<|eot_id|>\" }}\n    {%- elif message.role == "
    "\"tool\" or message.role == \"ipython\" %}\n        {{- \"<|start_header_id|>ipython<|end_header_id|>\\n\\n\" "
    "}}\n        {%- if message.content is mapping or message.content is iterable %}\n            {{- message.conte"
    "nt | tojson }}\n        {%- else %}\n            {{- message.content }}\n        {%- endif %}\n        {{- \"<"
    "|eot_id|>\" }}\n    {%- endif %}\n{%- endfor %}\n{%- if add_generation_prompt %}\n    {{- '<|start_header_id|>"
    "assistant<|end_header_id|>\\n\\n' }}\n{%- endif %}\n";
static const char *tmpl_llama2 =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages"
    "[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}{% for"
    " message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('"
    "Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == 0 and "
    "system_message != false %}{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['cont"
    "ent'] %}{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_to"
    "ken + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.st"
    "rip() + ' ' + eos_token }}{% endif %}{% endfor %}";
static const char *tmpl_mistral1 =
    "{%- if messages[0]['role'] == 'system' %}\n    {%- set system_message = messages[0]['content'] %}\n    {%- set"
    " loop_messages = messages[1:] %}\n{%- else %}\n    {%- set loop_messages = messages %}\n{%- endif %}\n\n{{- bo"
    "s_token }}\n{%- for message in loop_messages %}\n    {%- if (message['role'] == 'user') != (loop.index0 % 2 =="
    " 0) %}\n        {{- raise_exception('After the optional system message, conversation roles must alternate user"
    "/assistant/user/assistant/...') }}\n    {%- endif %}\n    {%- if message['role'] == 'user' %}\n        {%- if "
    "loop.first and system_message is defined %}\n            {{- ' [INST] ' + system_message + '\\n\\n' + message["
    "'content'] + ' [/INST]' }}\n        {%- else %}\n            {{- ' [INST] ' + message['content'] + ' [/INST]' "
    "}}\n        {%- endif %}\n    {%- elif message['role'] == 'assistant' %}\n        {{- ' ' + message['content']"
    " + eos_token}}\n    {%- else %}\n        {{- raise_exception('Only user and assistant roles are supported, wit"
    "h the exception of an initial optional system message!') }}\n    {%- endif %}\n{%- endfor %}\n";
static const char *tmpl_mistral3 =
    "{%- if messages[0][\"role\"] == \"system\" %}\n    {%- set system_message = messages[0][\"content\"] %}\n    {"
    "%- set loop_messages = messages[1:] %}\n{%- else %}\n    {%- set loop_messages = messages %}\n{%- endif %}\n{%"
    "- if not tools is defined %}\n    {%- set tools = none %}\n{%- endif %}\n{%- set user_messages = loop_messages"
    " | selectattr(\"role\", \"equalto\", \"user\") | list %}\n\n{#- This block checks for alternating user/assista"
    "nt messages, skipping tool calling messages #}\n{%- set ns = namespace() %}\n{%- set ns.index = 0 %}\n{%- for "
    "message in loop_messages %}\n    {%- if not (message.role == \"tool\" or message.role == \"tool_results\" or ("
    "message.tool_calls is defined and message.tool_calls is not none)) %}\n        {%- if (message[\"role\"] == \""
    "user\") != (ns.index % 2 == 0) %}\n            {{- raise_exception(\"After the optional system message, conver"
    "sation roles must alternate user/assistant/user/assistant/...\") }}\n        {%- endif %}\n        {%- set ns."
    "index = ns.index + 1 %}\n    {%- endif %}\n{%- endfor %}\n\n{{- bos_token }}\n{%- for message in loop_messages"
    " %}\n    {%- if message[\"role\"] == \"user\" %}\n        {%- if tools is not none and (message == user_messag"
    "es[-1]) %}\n            {{- \"[AVAILABLE_TOOLS] [\" }}\n            {%- for tool in tools %}\n                "
    "{{- tool }}\n            {%- endfor %}\n            {{- \"][/AVAILABLE_TOOLS]\" }}\n        {%- endif %}\n    "
    "    {%- if loop.last and system_message is defined %}\n            {{- \"[INST] \" + system_message + \"\\n\\n"
    "\" + message[\"content\"] + \"[/INST]\" }}\n        {%- else %}\n            {{- \"[INST] \" + message[\"conte"
    "nt\"] + \"[/INST]\" }}\n        {%- endif %}\n    {%- elif message.tool_calls is defined and message.tool_call"
    "s is not none %}\n        {{- \"[TOOL_CALLS] [\" }}\n        {{- \"]\" + eos_token }}\n    {%- elif message[\""
    "role\"] == \"assistant\" %}\n        {{- \" \" + message[\"content\"]|trim + eos_token}}\n    {%- elif message"
    "[\"role\"] == \"tool_results\" or message[\"role\"] == \"tool\" %}\n        {{- '[TOOL_RESULTS] {\"content\": "
    "' + content|string + \", }[/TOOL_RESULTS]\" }}\n    {%- else %}\n        {{- raise_exception(\"Only user and a"
    "ssistant roles are supported, with the exception of an initial optional system message!\") }}\n    {%- endif %"
    "}\n{%- endfor %}\n";
static const char *tmpl_phi3 =
    "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n' + message['content'] + '<|en"
    "d|>\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message"
    "['role'] == 'assistant' %}{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}{% if"
    " add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}";
static const char *tmpl_zephyr =
    "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + eos_"
    "token }}\n{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n{% el"
    "if message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n{% endif %}\n"
    "{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}";
/* OLMo-2-1124-13B-Instruct's (Tulu 3's), as its tokenizer_config.json decodes: \n two characters */
static const char *tmpl_tulu =
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}{{ '<|system|>\\n' + message['content'] + '\\n' }}{"
    "% elif message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + '\\n' }}{% elif message['role'] == 'assistant' %}{% if "
    "not loop.last %}{{ '<|assistant|>\\n'  + message['content'] + eos_token + '\\n' }}{% else %}{{ '<|assistant|>\\n'  + message['con"
    "tent'] + eos_token }}{% endif %}{% endif %}{% if loop.last and add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}{% endfor %}";
/* granite-3.1-2b-instruct's (also 3.1-1b-a400m's and 3b-a800m's) */
static const char *tmpl_granite31 =
    "{%- if messages[0]['role'] == 'system' %}\n    {%- set system_message = messages[0]['content'] %}\n    {%- set loop_messages = messages[1:] %}\n"
    "{%- else %}\n    {%- set system_message = \"Knowledge Cutoff Date: April 2024.\nToday's Date: \" + strftime_now('%B %d, %Y') + \".\nYou are Granite, "
    "developed by IBM.\" %}\n    {%- if tools and documents %}\n        {%- set system_message = system_message + \" You are a helpful AI assistant with "
    "access to the following tools.\" %}\n    {%- elif tools %}\n        {%- set system_message = system_message + \" You are a helpful AI assistant with "
    "access to the following tools.\" %}\n     {%- else %}\n        {%- set system_message = system_message + \" You are a helpful AI assistant.\" %}    \n"
    "    {%- endif %}\n    {%- set loop_messages = messages %}\n{%- endif %}\n{{- '<|start_of_role|>system<|end_of_role|>' + system_message + "
    "'<|end_of_text|>\n' }}\n{%- if tools %}\n    {{- '<|start_of_role|>tools<|end_of_role|>' }}\n    {{- functions | tojson(indent=4) }}\n    {{- "
    "'<|end_of_text|>\n' }}\n{%- endif %}\n{%- for message in loop_messages %}\n    {{- '<|start_of_role|>' + message['role'] + '<|end_of_role|>' + "
    "message['content'] + '<|end_of_text|>\n' }}\n    {%- if loop.last and add_generation_prompt %}\n        {{- '<|start_of_role|>assistant' }}\n     "
    "      {{- '<|end_of_role|>' }}\n    {%- endif %}\n{%- endfor %}";
/* a later Granite template (available_tools, thinking and controls; each message's content
   a string or a list of parts), abridged: its documents turns and the long tool and thinking texts left out */
static const char *tmpl_granite_thinking =
    "{%- if tools and not available_tools -%}\n    {%- set available_tools = tools -%}\n{%- endif -%}\n{%- if messages[0]['role'] == 'system' %}\n"
    "    {%- set system_message = messages[0]['content'] %}\n    {%- set loop_messages = messages[1:] %}\n{%- else %}\n    {%- set system_message = "
    "\"Knowledge Cutoff Date: April 2024.\\nToday's Date: \" + strftime_now('%B %d, %Y') + \".\\nYou are Granite, developed by IBM.\" %}\n    {%- if "
    "available_tools %}\n        {%- set system_message = system_message + \" You are a helpful assistant with access to the following tools.\" %}\n    {%- elif "
    "thinking %}\n        {%- set system_message = system_message + \" You are a helpful AI assistant.\\nRespond to every user query in a comprehensive and "
    "detailed way.\" %}\n    {%- else %}\n        {%- set system_message = system_message + \" You are a helpful AI assistant.\" %}\n    {%- endif %}\n    "
    "{%- set loop_messages = messages %}\n{%- endif %}\n{{- '<|start_of_role|>system<|end_of_role|>' + system_message + '<|end_of_text|>\\n' }}\n"
    "{%- for message in loop_messages %}\n    {{- '<|start_of_role|>' + message['role'] + '<|end_of_role|>' }}\n    {%- if message['content'] is string %}\n"
    "        {{- message['content'] }}\n    {%- else %}\n        {%- for entry in message['content'] %}\n            {%- if entry['type'] == 'text' %}\n"
    "                {{- entry['text'] }}\n            {%- endif %}\n        {%- endfor %}\n    {%- endif %}\n    {%- if loop.last and add_generation_prompt %}\n"
    "        {{- '<|end_of_text|>\\n' + '<|start_of_role|>assistant' }}\n        {%- if controls %}\n            {{- ' ' + controls | tojson()}}\n"
    "        {%- endif %}\n        {{- '<|end_of_role|>' }}\n    {%- else %}\n        {{- '<|end_of_text|>\\n' }}\n    {%- endif %}\n{%- endfor %}\n";
/* EXAONE 4.0's (the 32B's and 1.2B's chat_template.jinja), abridged: the tools text and tool calls left out */
static const char *tmpl_exaone4 =
    "{%- if not skip_think is defined %}\n    {%- set skip_think = true %}\n{%- endif %}\n{%- set role_indicators = {\n    'user': '[|user|]\\n',\n"
    "    'assistant': '[|assistant|]\\n',\n    'system': '[|system|]\\n',\n    'tool': '[|tool|]\\n'\n} %}\n{%- set end_of_turn = '[|endofturn|]\\n' %}\n"
    "{%- set ns = namespace(last_query_index = messages|length - 1) %}\n{%- for message in messages %}\n"
    "    {%- if message.role == \"user\" and message.content is string %}\n        {%- set ns.last_query_index = loop.index0 -%}\n    {%- endif %}\n"
    "{%- endfor %}\n{%- for i in range(messages | length) %}\n    {%- set msg = messages[i] %}\n    {%- set role = msg.role %}\n"
    "    {%- if role not in role_indicators %}\n        {{- raise_exception('Unknown role: ' ~ role) }}\n    {%- endif %}\n"
    "    {%- if i == 0 %}\n        {%- if role == 'system' %}\n            {{- role_indicators['system'] }}\n            {{- msg.content }}\n"
    "            {{- end_of_turn -}}\n            {%- continue %}\n        {%- endif %}\n    {%- endif %}\n    {%- if role == 'assistant' %}\n"
    "        {{- role_indicators['assistant'] }}\n        {%- if msg.content %}\n            {%- if \"</think>\" in msg.content %}\n"
    "                {%- set content = msg.content.split('</think>')[-1].strip() %}\n                {%- set reasoning_content = msg.content.split('</think>')[0].strip() %}\n"
    "                {%- if reasoning_content.startswith(\"<think>\") %}\n                    {%- set reasoning_content = reasoning_content[9:].strip() %}\n"
    "                {%- endif %}\n            {%- else %}\n                {%- set content = msg.content %}\n            {%- endif %}\n"
    "            {%- if (not skip_think and loop.last) and reasoning_content is defined %}\n                {{- \"<think>\\n\" }}\n"
    "                {{- reasoning_content}}\n                {{- \"\\n</think>\\n\\n\" }}\n            {%- else %}\n"
    "                {{- \"<think>\\n\\n</think>\\n\\n\" }}\n            {%- endif %}\n            {{- content }}\n        {%- endif %}\n"
    "        {{- end_of_turn -}}\n    {%- else %}\n        {{- role_indicators[role] }}\n        {{- msg.content }}\n        {{- end_of_turn -}}\n"
    "    {%- endif %}\n{% endfor %}\n{%- if add_generation_prompt %}\n    {{- role_indicators['assistant'] }}\n"
    "    {%- if enable_thinking is defined and enable_thinking is true %}\n        {{- \"<think>\\n\" }}\n    {%- else %}\n"
    "        {{- \"<think>\\n\\n</think>\\n\\n\" }}\n    {%- endif %}\n{%- endif %}";
/* EXAONE 3.5's: the same markers, no reasoning block, another layout (not exaone4's) */
static const char *tmpl_exaone35 =
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}{{ '[|system|][|endofturn|]\\n' }}{% endif %}{{ '[|' + "
    "message['role'] + '|]' + message['content'] }}{% if message['role'] == 'user' %}{{ '\\n' }}{% else %}{{ '[|endofturn|]\\n' }}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}{{ '[|assistant|]' }}{% endif %}";
/* Olmo-3-7B-Think-SFT's chat_template.jinja (open-instruct's olmo_thinker; sha256 6d549883...) */
static const char *tmpl_olmo3_think =
    "{% set has_system = messages|selectattr('role', 'equalto', 'system')|list|length > 0 %}{% if not has_system %}{{ '<|im_start|>system\nYou ar"
    "e OLMo, a helpful function-calling AI assistant built by Ai2. Your date cutoff is November 2024, and your model weights are available at htt"
    "ps://huggingface.co/allenai. You do not currently have access to any functions. <functions></functions><|im_end|>\n' }}{% endif %}{% for mes"
    "sage in messages %}{% if message['role'] == 'system' %}{{ '<|im_start|>system\n' + message['content'] }}{% if message.get('functions', none)"
    " is not none %}{{ ' <functions>' + message['functions'] + '</functions><|im_end|>\n' }}{% else %}{{ ' You do not currently have access to an"
    "y functions. <functions></functions><|im_end|>\n' }}{% endif %}{% elif message['role'] == 'user' %}{% if message.get('functions', none) is n"
    "ot none %}{{ '<|im_start|>user\n' + message['content'] + '\n' + '<functions>' + message['functions'] + '</functions><|im_end|>\n' }}{% else "
    "%}{{ '<|im_start|>user\n' + message['content'] + '<|im_end|>\n' }}{% endif %}{% elif message['role'] == 'assistant' %}{{ '<|im_start|>assist"
    "ant\n' }}{% if message.get('content', none) is not none %}{{ message['content'] }}{% endif %}{% if message.get('function_calls', none) is no"
    "t none %}{{ '<function_calls>' + message['function_calls'] + '</function_calls>' }}{% endif %}{% if not loop.last %}{{ '<|im_end|>' + '\n' }"
    "}{% else %}{{ eos_token }}{% endif %}{% elif message['role'] == 'environment' %}{{ '<|im_start|>environment\n' + message['content'] + '<|im_"
    "end|>\n' }}{% endif %}{% if loop.last and add_generation_prompt %}{{ '<|im_start|>assistant\n<think>' }}{% endif %}{% endfor %}";
/* gpt-oss-20b / -120b's chat_template.jinja (harmony), its system-message macro and main logic as they are (the
   tool-rendering macros render_typescript_type, render_tool_namespace and render_builtin_tools left out: 9 KB of text
   used only with tools); three literals (each under C99's 4095 characters), joined in main */
static const char *const tmpl_gpt_oss_parts[5] = {
    "{#- Tool Definition Rendering ============================================== #}\n{%- macro render_typescript_t"
    "ype(param_spec, required_params, is_nullable=false) -%}\n    {%- if param_spec.type == \"array\" -%}\n        "
    "{%- if param_spec['items'] -%}\n            {%- if param_spec['items']['type'] == \"string\" -%}\n            "
    "    {{- \"string[]\" }}\n            {%- elif param_spec['items']['type'] == \"number\" -%}\n                {"
    "{- \"number[]\" }}\n            {%- elif param_spec['items']['type'] == \"integer\" -%}\n                {{- "
    "\"number[]\" }}\n            {%- elif param_spec['items']['type'] == \"boolean\" -%}\n                {{- \"bo"
    "olean[]\" }}\n            {%- else -%}\n                {%- set inner_type = render_typescript_type(param_spec"
    "['items'], required_params) -%}\n                {%- if inner_type == \"object | object\" or inner_type|length"
    " > 50 -%}\n                    {{- \"any[]\" }}\n                {%- else -%}\n                    {{- inner_t"
    "ype + \"[]\" }}\n                {%- endif -%}\n            {%- endif -%}\n            {%- if param_spec.nulla"
    "ble -%}\n                {{- \" | null\" }}\n            {%- endif -%}\n        {%- else -%}\n            {{- "
    "\"any[]\" }}\n            {%- if param_spec.nullable -%}\n                {{- \" | null\" }}\n            {%- "
    "endif -%}\n        {%- endif -%}\n    {%- elif param_spec.type is defined and param_spec.type is iterable and "
    "param_spec.type is not string and param_spec.type is not mapping and param_spec.type[0] is defined -%}\n      "
    "  {#- Handle array of types like [\"object\", \"object\"] from Union[dict, list] #}\n        {%- if param_spec"
    ".type | length > 1 -%}\n            {{- param_spec.type | join(\" | \") }}\n        {%- else -%}\n            "
    "{{- param_spec.type[0] }}\n        {%- endif -%}\n    {%- elif param_spec.oneOf -%}\n        {#- Handle oneOf "
    "schemas - check for complex unions and fallback to any #}\n        {%- set has_object_variants = false -%}\n  "
    "      {%- for variant in param_spec.oneOf -%}\n            {%- if variant.type == \"object\" -%}\n            "
    "    {%- set has_object_variants = true -%}\n            {%- endif -%}\n        {%- endfor -%}\n        {%- if "
    "has_object_variants and param_spec.oneOf|length > 1 -%}\n            {{- \"any\" }}\n        {%- else -%}\n   "
    "         {%- for variant in param_spec.oneOf -%}\n                {{- render_typescript_type(variant, required"
    "_params) -}}\n                {%- if variant.description %}\n                    {{- \"// \" + variant.descrip"
    "tion }}\n                {%- endif -%}\n                {%- if variant.default is defined %}\n                "
    "    {{ \"// default: \" + variant.default|tojson }}\n                {%- endif -%}\n                {%- if not"
    " loop.last %}\n                    {{- \" | \" }}\n                {% endif -%}\n            {%- endfor -%}\n "
    "       {%- endif -%}\n    {%- elif param_spec.type == \"string\" -%}\n        {%- if param_spec.enum -%}\n    "
    "        {{- '\"' + param_spec.enum|join('\" | \"') + '\"' -}}\n        {%- else -%}\n            {{- \"string"
    "\" }}\n            {%- if param_spec.nullable %}\n                {{- \" | null\" }}\n            {%- endif -%"
    "}\n        {%- endif -%}\n    {%- elif param_spec.type == \"number\" -%}\n        {{- \"number\" }}\n",
    "    {%- elif param_spec.type == \"integer\" -%}\n        {{- \"number\" }}\n    {%- elif param_spec.type == \""
    "boolean\" -%}\n        {{- \"boolean\" }}\n\n    {%- elif param_spec.type == \"object\" -%}\n        {%- if pa"
    "ram_spec.properties -%}\n            {{- \"{\\n\" }}\n            {%- for prop_name, prop_spec in param_spec.p"
    "roperties.items() -%}\n                {{- prop_name -}}\n                {%- if prop_name not in (param_spec."
    "required or []) -%}\n                    {{- \"?\" }}\n                {%- endif -%}\n                {{- \": "
    "\" }}\n                {{ render_typescript_type(prop_spec, param_spec.required or []) }}\n                {%-"
    " if not loop.last -%}\n                    {{-\", \" }}\n                {%- endif -%}\n            {%- endfor"
    " -%}\n            {{- \"}\" }}\n        {%- else -%}\n            {{- \"object\" }}\n        {%- endif -%}\n  "
    "  {%- else -%}\n        {{- \"any\" }}\n    {%- endif -%}\n{%- endmacro -%}\n\n{%- macro render_tool_namespace"
    "(namespace_name, tools) -%}\n    {{- \"## \" + namespace_name + \"\\n\\n\" }}\n    {{- \"namespace \" + namesp"
    "ace_name + \" {\\n\\n\" }}\n    {%- for tool in tools %}\n        {%- set tool = tool.function %}\n        {{-"
    " \"// \" + tool.description + \"\\n\" }}\n        {{- \"type \"+ tool.name + \" = \" }}\n        {%- if tool.p"
    "arameters and tool.parameters.properties %}\n            {{- \"(_: {\\n\" }}\n            {%- for param_name, "
    "param_spec in tool.parameters.properties.items() %}\n                {%- if param_spec.description %}\n       "
    "             {{- \"// \" + param_spec.description + \"\\n\" }}\n                {%- endif %}\n                "
    "{{- param_name }}\n                {%- if param_name not in (tool.parameters.required or []) -%}\n            "
    "        {{- \"?\" }}\n                {%- endif -%}\n                {{- \": \" }}\n                {{- render"
    "_typescript_type(param_spec, tool.parameters.required or []) }}\n                {%- if param_spec.default is "
    "defined -%}\n                    {%- if param_spec.enum %}\n                        {{- \", // default: \" + p"
    "aram_spec.default }}\n                    {%- elif param_spec.oneOf %}\n                        {{- \"// defau"
    "lt: \" + param_spec.default }}\n                    {%- else %}\n                        {{- \", // default: "
    "\" + param_spec.default|tojson }}\n                    {%- endif -%}\n                {%- endif -%}\n         "
    "       {%- if not loop.last %}\n                    {{- \",\\n\" }}\n                {%- else %}\n            "
    "        {{- \",\\n\" }}\n                {%- endif -%}\n            {%- endfor %}\n            {{- \"}) => any"
    ";\\n\\n\" }}\n        {%- else -%}\n            {{- \"() => any;\\n\\n\" }}\n        {%- endif -%}\n    {%- en"
    "dfor %}\n    {{- \"} // namespace \" + namespace_name }}\n{%- endmacro -%}\n\n",
    "{#- System Message Construction ============================================ #}\n{%- macro build_system_message() -%}\n"
    "    {%- if model_identity is not defined %}\n        {%- set model_identity = \"You are ChatGPT, a large language model trained by OpenAI.\" %}\n"
    "    {%- endif %}\n    {{- model_identity + \"\\n\" }}\n    {{- \"Knowledge cutoff: 2024-06\\n\" }}\n"
    "    {{- \"Current date: \" + strftime_now(\"%Y-%m-%d\") + \"\\n\\n\" }}\n    {%- if reasoning_effort is not defined %}\n"
    "        {%- set reasoning_effort = \"medium\" %}\n    {%- endif %}\n    {{- \"Reasoning: \" + reasoning_effort + \"\\n\\n\" }}\n"
    "    {%- if builtin_tools %}\n        {{- \"# Tools\\n\\n\" }}\n        {%- set available_builtin_tools = namespace(browser=false, python=false) %}\n"
    "        {%- for tool in builtin_tools %}\n            {%- if tool == \"browser\" %}\n                {%- set available_builtin_tools.browser = true %}\n"
    "            {%- elif tool == \"python\" %}\n                {%- set available_builtin_tools.python = true %}\n            {%- endif %}\n"
    "        {%- endfor %}\n        {{- render_builtin_tools(available_builtin_tools.browser, available_builtin_tools.python) }}\n    {%- endif -%}\n"
    "    {{- \"# Valid channels: analysis, commentary, final. Channel must be included for every message.\" }}\n    {%- if tools -%}\n"
    "        {{- \"\\nCalls to these tools must go to the commentary channel: 'functions'.\" }}\n    {%- endif -%}\n{%- endmacro -%}\n\n"
    "{#- Main Template Logic ================================================= #}\n{#- Set defaults #}\n\n{#- Render system message #}\n"
    "{{- \"<|start|>system<|message|>\" }}\n{{- build_system_message() }}\n{{- \"<|end|>\" }}\n\n{#- Extract developer message #}\n"
    "{%- if messages[0].role == \"developer\" or messages[0].role == \"system\" %}\n    {%- set developer_message = messages[0].content %}\n"
    "    {%- set loop_messages = messages[1:] %}\n{%- else %}\n    {%- set developer_message = \"\" %}\n    {%- set loop_messages = messages %}\n"
    "{%- endif %}\n\n{#- Render developer message #}\n{%- if developer_message or tools %}\n    {{- \"<|start|>developer<|message|>\" }}\n"
    "    {%- if developer_message %}\n        {{- \"# Instructions\\n\\n\" }}\n        {{- developer_message }}\n        {{- \"\\n\\n\" }}\n"
    "    {%- endif %}\n    {%- if tools -%}\n        {{- \"# Tools\\n\\n\" }}\n        {{- render_tool_namespace(\"functions\", tools) }}\n"
    "    {%- endif -%}\n    {{- \"<|end|>\" }}\n{%- endif %}\n\n",
    "{#- Render messages #}\n{%- set last_tool_call = namespace(name=none) %}\n"
    "{%- for message in loop_messages -%}\n    {#- At this point only assistant/user/tool messages should remain #}\n"
    "    {%- if message.role == 'assistant' -%}\n        {#- Checks to ensure the messages are being passed in the format we expect #}\n"
    "        {%- if \"content\" in message %}\n"
    "            {%- if \"<|channel|>analysis<|message|>\" in message.content or \"<|channel|>final<|message|>\" in message.content %}\n"
    "                {{- raise_exception(\"You have passed a message containing <|channel|> tags in the content field. Instead of doing this, you "
    "should pass analysis messages (the string between '<|message|>' and '<|end|>') in the 'thinking' field, and final messages (the string between "
    "'<|message|>' and '<|end|>') in the 'content' field.\") }}\n            {%- endif %}\n        {%- endif %}\n"
    "        {%- if \"thinking\" in message %}\n"
    "            {%- if \"<|channel|>analysis<|message|>\" in message.thinking or \"<|channel|>final<|message|>\" in message.thinking %}\n"
    "                {{- raise_exception(\"You have passed a message containing <|channel|> tags in the thinking field. Instead of doing this, you "
    "should pass analysis messages (the string between '<|message|>' and '<|end|>') in the 'thinking' field, and final messages (the string between "
    "'<|message|>' and '<|end|>') in the 'content' field.\") }}\n            {%- endif %}\n        {%- endif %}\n"
    "        {%- if \"tool_calls\" in message %}\n"
    "            {#- We need very careful handling here - we want to drop the tool call analysis message if the model #}\n"
    "            {#- has output a later <|final|> message, but otherwise we want to retain it. This is the only case #}\n"
    "            {#- when we render CoT/analysis messages in inference. #}\n            {%- set future_final_message = namespace(found=false) %}\n"
    "            {%- for future_message in loop_messages[loop.index:] %}\n"
    "                {%- if future_message.role == 'assistant' and \"tool_calls\" not in future_message %}\n"
    "                    {%- set future_final_message.found = true %}\n                {%- endif %}\n            {%- endfor %}\n"
    "            {#- We assume max 1 tool call per message, and so we infer the tool call name #}\n"
    "            {#- in \"tool\" messages from the most recent assistant tool call name #}\n            {%- set tool_call = message.tool_calls[0] %}\n"
    "            {%- if tool_call.function %}\n                {%- set tool_call = tool_call.function %}\n            {%- endif %}\n"
    "            {%- if message.content and message.thinking %}\n"
    "                {{- raise_exception(\"Cannot pass both content and thinking in an assistant message with tool calls! Put the analysis message in "
    "one or the other, but not both.\") }}\n            {%- elif message.content and not future_final_message.found %}\n"
    "                {{- \"<|start|>assistant<|channel|>analysis<|message|>\" + message.content + \"<|end|>\" }}\n"
    "            {%- elif message.thinking and not future_final_message.found %}\n"
    "                {{- \"<|start|>assistant<|channel|>analysis<|message|>\" + message.thinking + \"<|end|>\" }}\n            {%- endif %}\n"
    "            {{- \"<|start|>assistant to=\" }}\n            {{- \"functions.\" + tool_call.name + \"<|channel|>commentary \" }}\n"
    "            {{- (tool_call.content_type if tool_call.content_type is defined else \"json\") + \"<|message|>\" }}\n"
    "            {{- tool_call.arguments|tojson }}\n            {{- \"<|call|>\" }}\n            {%- set last_tool_call.name = tool_call.name %}\n",
    "        {%- elif loop.last and not add_generation_prompt %}\n"
    "            {#- Only render the CoT if the final turn is an assistant turn and add_generation_prompt is false #}\n"
    "            {#- This is a situation that should only occur in training, never in inference. #}\n            {%- if \"thinking\" in message %}\n"
    "                {{- \"<|start|>assistant<|channel|>analysis<|message|>\" + message.thinking + \"<|end|>\" }}\n            {%- endif %}\n"
    "            {#- <|return|> indicates the end of generation, but <|end|> does not #}\n"
    "            {#- <|return|> should never be an input to the model, but we include it as the final token #}\n"
    "            {#- when training, so the model learns to emit it. #}\n"
    "            {{- \"<|start|>assistant<|channel|>final<|message|>\" + message.content + \"<|return|>\" }}\n        {%- else %}\n"
    "            {#- CoT is dropped during all previous turns, so we never render it for inference #}\n"
    "            {{- \"<|start|>assistant<|channel|>final<|message|>\" + message.content + \"<|end|>\" }}\n"
    "            {%- set last_tool_call.name = none %}\n        {%- endif %}\n    {%- elif message.role == 'tool' -%}\n"
    "        {%- if last_tool_call.name is none %}\n"
    "            {{- raise_exception(\"Message has tool role, but there was no previous assistant message with a tool call!\") }}\n        {%- endif %}\n"
    "        {{- \"<|start|>functions.\" + last_tool_call.name }}\n"
    "        {{- \" to=assistant<|channel|>commentary<|message|>\" + message.content|tojson + \"<|end|>\" }}\n"
    "    {%- elif message.role == 'user' -%}\n        {{- \"<|start|>user<|message|>\" + message.content + \"<|end|>\" }}\n    {%- endif -%}\n"
    "{%- endfor -%}\n\n{#- Generation prompt #}\n{%- if add_generation_prompt -%}\n<|start|>assistant\n{%- endif -%}\n"};
static char tmpl_gpt_oss_text[16384];
static const char *tmpl_gpt_oss = tmpl_gpt_oss_text;
/* MiniCPM-2B-sft's (also MiniCPM-1B's) */
static const char *tmpl_minicpm =
    "{% for message in messages %}{% if message['role'] == 'user' %}{{'<\xe7\x94\xa8\xe6\x88\xb7>' + message['content'].strip() + '<AI>'}}{% else %}"
    "{{message['content'].strip()}}{% endif %}{% endfor %}";
static const char *tmpl_gemma2 =
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% en"
    "dif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exce"
    "ption('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if (message['role"
    "'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_o"
    "f_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}{% if add_generation_prom"
    "pt %}{{'<start_of_turn>model\n'}}{% endif %}";
static const char *tmpl_gemma3 =
    "{{ bos_token }}\n{%- if messages[0]['role'] == 'system' -%}\n    {%- if messages[0]['content'] is string -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}\n    {%- else -%}\n        {%- set fir"
    "st_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}\n    {%- endif -%}\n    {%- set loop_messages "
    "= messages[1:] -%}\n{%- else -%}\n    {%- set first_user_prefix = \"\" -%}\n    {%- set loop_messages = messag"
    "es -%}\n{%- endif -%}\n{%- for message in loop_messages -%}\n    {%- if (message['role'] == 'user') != (loop.i"
    "ndex0 % 2 == 0) -%}\n        {{ raise_exception(\"Conversation roles must alternate user/assistant/user/assist"
    "ant/...\") }}\n    {%- endif -%}\n    {%- if (message['role'] == 'assistant') -%}\n        {%- set role = \"mo"
    "del\" -%}\n    {%- else -%}\n        {%- set role = message['role'] -%}\n    {%- endif -%}\n    {{ '<start_of_"
    "turn>' + role + '\n' + (first_user_prefix if loop.first else \"\") }}\n    {%- if message['content'] is string"
    " -%}\n        {{ message['content'] | trim }}\n    {%- elif message['content'] is iterable -%}\n        {%- fo"
    "r item in message['content'] -%}\n            {%- if item['type'] == 'image' -%}\n                {{ '<start_o"
    "f_image>' }}\n            {%- elif item['type'] == 'text' -%}\n                {{ item['text'] | trim }}\n    "
    "        {%- endif -%}\n        {%- endfor -%}\n    {%- else -%}\n        {{ raise_exception(\"Invalid content "
    "type\") }}\n    {%- endif -%}\n    {{ '<end_of_turn>\n' }}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n"
    "    {{'<start_of_turn>model\n'}}\n{%- endif -%}\n";

/* Qwen3 (hybrid reasoning): the message part of its template, tools left out */
static const char *tmpl_qwen3 =
    "{%- if tools %}\n    {{- '<|im_start|>system\\n' }}\n    {%- if messages[0].role == 'system' %}\n        {{- messages[0].content + '\\n\\n' }}\n    {%- endif %}\n"
    "    {{- \"# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>\" }}\n"
    "    {%- for tool in tools %}\n        {{- \"\\n\" }}\n        {{- tool | tojson }}\n    {%- endfor %}\n"
    "    {{- \"\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n</tool_call><|im_end|>\\n\" }}\n"
    "{%- else %}\n    {%- if messages[0].role == 'system' %}\n        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n    {%- endif %}\n{%- endif %}\n"
    "{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n"
    "{%- for message in messages[::-1] %}\n    {%- set index = (messages|length - 1) - loop.index0 %}\n"
    "    {%- if ns.multi_step_tool and message.role == \"user\" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}\n"
    "        {%- set ns.multi_step_tool = false %}\n        {%- set ns.last_query_index = index %}\n    {%- endif %}\n{%- endfor %}\n"
    "{%- for message in messages %}\n    {%- if message.content is string %}\n        {%- set content = message.content %}\n    {%- else %}\n        {%- set content = '' %}\n    {%- endif %}\n"
    "    {%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}\n"
    "        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
    "    {%- elif message.role == \"assistant\" %}\n        {%- set reasoning_content = '' %}\n"
    "        {%- if '</think>' in content %}\n"
    "            {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
    "            {%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n        {%- endif %}\n"
    "        {%- if loop.index0 > ns.last_query_index %}\n            {%- if loop.last or (not loop.last and reasoning_content) %}\n"
    "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
    "            {%- else %}\n                {{- '<|im_start|>' + message.role + '\\n' + content }}\n            {%- endif %}\n"
    "        {%- else %}\n            {{- '<|im_start|>' + message.role + '\\n' + content }}\n        {%- endif %}\n"
    "        {{- '<|im_end|>\\n' }}\n"
    "    {%- elif message.role == \"tool\" %}\n        {%- if loop.first or (messages[loop.index0 - 1].role != \"tool\") %}\n            {{- '<|im_start|>user' }}\n        {%- endif %}\n"
    "        {{- '\\n<tool_response>\\n' }}\n        {{- content }}\n        {{- '\\n</tool_response>' }}\n"
    "        {%- if loop.last or (messages[loop.index0 + 1].role != \"tool\") %}\n            {{- '<|im_end|>\\n' }}\n        {%- endif %}\n    {%- endif %}\n{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n    {{- '<|im_start|>assistant\\n' }}\n"
    "    {%- if enable_thinking is defined and enable_thinking is false %}\n        {{- '<think>\\n\\n</think>\\n\\n' }}\n    {%- endif %}\n{%- endif %}";

/* SmolLM3-3B's (HuggingFaceTB), in two parts (C99's longest string literal); joined in main */
static const char *const tmpl_smollm3_parts[2] = {
    "{# \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 defaults \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80 #}\n{%- if enable_thinking is not defined -%}\n{%- set enable_thinking = true -%}\n{%"
    "- endif -%}\n\n{# \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 reasoning mode \xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 #}\n{%- if enable_thinking -%}\n{%- set reasoning_mode = \"/t"
    "hink\" -%}\n{%- else -%}\n{%- set reasoning_mode = \"/no_think\" -%}\n{%- endif -%}\n\n{# \xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 header (system message) \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80 #}\n{{- \"<|im_start|>system\\n\" -}}\n\n{%- if messages[0].role == \"system\" -%}\n{"
    "%- set system_message = messages[0].content -%}\n{%- if \"/no_think\" in system_message -%}\n{%- set reasoning"
    "_mode = \"/no_think\" -%}\n{%- elif \"/think\" in system_message -%}\n{%- set reasoning_mode = \"/think\" -%}"
    "\n{%- endif -%}\n{%- set custom_instructions = system_message.replace(\"/no_think\", \"\").replace(\"/think\","
    " \"\").rstrip() -%}\n{%- endif -%}\n\n{%- if \"/system_override\" in system_message -%}\n{{- custom_instructio"
    "ns.replace(\"/system_override\", \"\").rstrip() -}}\n{{- \"<|im_end|>\\n\" -}}\n{%- else -%}\n{{- \"## Metadat"
    "a\\n\\n\" -}}\n{{- \"Knowledge Cutoff Date: June 2025\\n\" -}}\n{%- set today = strftime_now(\"%d %B %Y\") -%}"
    "\n{{- \"Today Date: \" ~ today ~ \"\\n\" -}}\n{{- \"Reasoning Mode: \" + reasoning_mode + \"\\n\\n\" -}}\n\n{{"
    "- \"## Custom Instructions\\n\\n\" -}}\n{%- if custom_instructions -%}\n{{- custom_instructions + \"\\n\\n\" -"
    "}}\n{%- elif reasoning_mode == \"/think\" -%}\n{{- \"You are a helpful AI assistant named SmolLM, trained by H"
    "ugging Face. Your role as an assistant involves thoroughly exploring questions through a systematic thinking p"
    "rocess before providing the final precise and accurate solutions. This requires engaging in a comprehensive cy"
    "cle of analysis, summarizing, exploration, reassessment, reflection, backtracking, and iteration to develop we"
    "ll-considered thinking process. Please structure your response into two main sections: Thought and Solution us"
    "ing the specified format: <think> Thought section </think> Solution section. In the Thought section, detail yo"
    "ur reasoning process in steps. Each step should include detailed considerations such as analysing questions, s"
    "ummarizing relevant findings, brainstorming new ideas, verifying the accuracy of the current steps, refining a"
    "ny errors, and revisiting previous steps. In the Solution section, based on various attempts, explorations, an"
    "d reflections from the Thought section, systematically present the final solution that you deem correct. The S"
    "olution section should be logical, accurate, and concise and detail necessary steps needed to reach the conclu"
    "sion.\\n\\n\" -}}\n{%- else -%}\n{{- \"You are a helpful AI assistant named SmolLM, trained by Hugging Face.\\"
    "n\\n\" -}}\n{%- endif -%}\n\n{%- if xml_tools or python_tools -%}\n",
    "{{- \"### Tools\\n\\n\" -}}\n{%- if xml_tools -%}\n  {%- set ns = namespace(xml_tool_string=\"You may call one"
    " or more functions to assist with the user query.\\nYou are provided with function signatures within <tools></"
    "tools> XML tags:\\n\\n<tools>\\n\") -%}\n  {%- for tool in xml_tools[:] -%} {# The slicing makes sure that xml"
    "_tools is a list #}\n    {%- set ns.xml_tool_string = ns.xml_tool_string ~ (tool | string) ~ \"\\n\" -%}\n  {%"
    "- endfor -%}\n  {%- set xml_tool_string = ns.xml_tool_string + \"</tools>\\n\\nFor each function call, return "
    "a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\\"n"
    "ame\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n</tool_call>\" -%}\n  {{- xml_tool_string -"
    "}}\n{%- endif -%}\n{%- if python_tools -%}\n  {%- set ns = namespace(python_tool_string=\"When you send a mess"
    "age containing Python code between '<code>' and '</code>' tags, it will be executed in a stateful Jupyter note"
    "book environment, and you will then be given the output to continued reasoning in an agentic loop.\\n\\nYou ca"
    "n use the following tools in your python code like regular functions:\\n<tools>\\n\") -%}\n  {%- for tool in p"
    "ython_tools[:] -%} {# The slicing makes sure that python_tools is a list #}\n    {%- set ns.python_tool_string"
    " = ns.python_tool_string ~ (tool | string) ~ \"\\n\" -%}\n  {%- endfor -%}\n  {%- set python_tool_string = ns."
    "python_tool_string + \"</tools>\\n\\nThe state persists between code executions: so variables that you define "
    "in one step are still available thereafter.\" -%}\n  {{- python_tool_string -}}\n{%- endif -%}\n{{- \"\\n\\n\""
    " -}}\n{{- \"<|im_end|>\\n\" -}}\n{%- endif -%}\n{%- endif -%}\n{# \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80 main loop \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 #}\n{%- for me"
    "ssage in messages -%}\n{%- set content = message.content if message.content is string else \"\" -%}\n{%- if me"
    "ssage.role == \"user\" -%}\n    {{ \"<|im_start|>\" + message.role + \"\\n\"  + content + \"<|im_end|>\\n\" }}"
    "\n{%- elif message.role == \"assistant\" -%}\n    {% generation %}\n    {%- if reasoning_mode == \"/think\" -%"
    "}\n        {{ \"<|im_start|>assistant\\n\" + content.lstrip(\"\\n\") + \"<|im_end|>\\n\" }}\n    {%- else -%}"
    "\n        {{ \"<|im_start|>assistant\\n\" + \"<think>\\n\\n</think>\\n\" + content.lstrip(\"\\n\") + \"<|im_en"
    "d|>\\n\" }}\n    {%- endif -%}\n    {% endgeneration %}\n{%- elif message.role == \"tool\" -%}\n{{ \"<|im_star"
    "t|>\" + \"user\\n\"  + content + \"<|im_end|>\\n\" }}\n{%- endif -%}\n{%- endfor -%}\n{# \xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 generation prompt \xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
    "\xe2\x94\x80\xe2\x94\x80 #}\n{%- if add_generation_prompt -%}\n{%- if reasoning_mode == \"/think\" -%}\n    {{"
    " \"<|im_start|>assistant\\n\" }}\n{%- else -%}\n    {{ \"<|im_start|>assistant\\n\" + \"<think>\\n\\n</think>"
    "\\n\"  }}\n{%- endif -%}\n{%- endif -%}\n"};
static char tmpl_smollm3[8192];

/* ---------------------------------------------------------------- helpers */
static char g_log[2048];
static void capture_log(srt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level <= SRT_LOG_WARN) snprintf(g_log + strlen(g_log), sizeof g_log - strlen(g_log), "%s; ", msg);
}

static const srt_chat_message conv_sua[4] = {
    {"system", "You are terse."}, {"user", "Hi there"}, {"assistant", "Hello!"}, {"user", "What is 2+2?"}};
static const srt_chat_message conv_ua[3] = {{"user", "Hi there"}, {"assistant", "Hello!"}, {"user", "What is 2+2?"}};
static const srt_chat_message conv_u[1] = {{"user", " Hi there \n"}};

/* tools (OpenAI form) and what the templates write for them */
static const char *tools_weather =
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather in a city\",\"parameters\":{\"type\":\"object\","
    "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}]";
#define TOOLS_WEATHER_JSON "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather in a city\", \"parameters\": " \
    "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}"
#define QWEN_TOOLS_HEAD "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures " \
    "within <tools></tools> XML tags:\n<tools>\n"
#define QWEN_TOOLS_TAIL "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> " \
    "XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
#define WEATHER_CALL "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"


/* Renders and compares; `what` names the case. */
static void expect(const srt_chat_template *t, const srt_chat_message *m, int n, int gen, const char *want, const char *what) {
    char buf[2048];
    size_t len = 0;
    srt_status st = srt_chat_render(t, m, n, gen, buf, sizeof buf, &len);
    CHECK(st == SRT_OK && len == strlen(want) && strcmp(buf, want) == 0, "%s renders as its template does%s%s", what,
          st == SRT_OK && strcmp(buf, want) ? ": got " : "", st == SRT_OK && strcmp(buf, want) ? buf : "");
}

static srt_chat_template from_text(const char *jinja, const char *bos, const char *eos) {
    srt_chat_template t;
    srt_chat_template_from_text(jinja, bos, eos, &t);
    return t;
}

static void test_names(void) {
    int f, ok = 1;
    for (f = 0; f < SRT_CHAT_FORMAT_COUNT; f++) ok = ok && srt_chat_format_from_name(srt_chat_format_name((srt_chat_format)f)) == f;
    CHECK(ok && SRT_CHAT_FORMAT_COUNT == 16 && !strcmp(srt_chat_format_name(SRT_CHAT_MISTRAL_V3), "mistral-v3"), "16 named formats, names round-trip");
    CHECK(srt_chat_format_from_name("jinja") == -1 && srt_chat_format_from_name(NULL) == -1 && !srt_chat_format_name(SRT_CHAT_FORMAT_COUNT),
          "unknown names are -1 / NULL");
}

static void test_detect(void) {
    static const struct { const char **text; srt_chat_format f; const char *sys; int dated; const char *name; } cases[] = {
        {&tmpl_smollm2, SRT_CHAT_CHATML, "You are a helpful AI assistant named SmolLM, trained by Hugging Face", 0, "SmolLM2"},
        {&tmpl_qwen25, SRT_CHAT_CHATML, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.", 0, "Qwen2.5"},
        {&tmpl_qwen3, SRT_CHAT_CHATML, "", 0, "Qwen3"},
        {&tmpl_llama3, SRT_CHAT_LLAMA3, "", 0, "Llama 3"},
        {&tmpl_llama32, SRT_CHAT_LLAMA3, "", 1, "Llama 3.2"},
        {&tmpl_llama2, SRT_CHAT_LLAMA2, "", 0, "Llama 2"},
        {&tmpl_mistral1, SRT_CHAT_MISTRAL, "", 0, "Mistral 7B v0.1 / Mixtral"},
        {&tmpl_mistral3, SRT_CHAT_MISTRAL_V3, "", 0, "Mistral 7B v0.3"},
        {&tmpl_phi3, SRT_CHAT_PHI3, "", 0, "Phi-3"},
        {&tmpl_zephyr, SRT_CHAT_ZEPHYR, "", 0, "Zephyr"},
        {&tmpl_tulu, SRT_CHAT_TULU, "", 0, "OLMo 2 Instruct (Tulu 3)"},
        {&tmpl_granite31, SRT_CHAT_GRANITE, NULL, 0, "Granite 3.1"},
        {&tmpl_exaone4, SRT_CHAT_EXAONE4, "", 0, "EXAONE 4.0"},
        {&tmpl_exaone35, SRT_CHAT_EXAONE3, "", 0, "EXAONE 3.5"},
        {&tmpl_minicpm, SRT_CHAT_MINICPM, "", 0, "MiniCPM-2B"},
        {&tmpl_olmo3_think, SRT_CHAT_OLMO3, "You are OLMo, a helpful function-calling AI assistant built by Ai2. Your date cutoff is November 2024, and your model "
         "weights are available at https://huggingface.co/allenai. You do not currently have access to any functions. <functions></functions>", 0, "OLMo 3 Think"},
        {&tmpl_gpt_oss, SRT_CHAT_HARMONY, "", 0, "gpt-oss (harmony)"},
        {&tmpl_gemma2, SRT_CHAT_GEMMA, "", 0, "Gemma 2"},
        {&tmpl_gemma3, SRT_CHAT_GEMMA, "", 0, "Gemma 3"},
    };
    size_t i;
    srt_chat_template t;
    srt_set_log(capture_log, NULL);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        g_log[0] = 0;
        t = from_text(*cases[i].text, NULL, NULL);
        CHECK(t.format == cases[i].f && !t.guessed && (!cases[i].sys || !strcmp(t.default_system, cases[i].sys)) && t.dated_system == cases[i].dated && !g_log[0],
              "%s template recognised as %s%s%s", cases[i].name, srt_chat_format_name(cases[i].f), !cases[i].sys || cases[i].sys[0] ? " with its default system prompt" : "",
              cases[i].dated ? " with the dated system block" : "");
    }
    CHECK(from_text(tmpl_qwen3, NULL, NULL).think == 1 && from_text(tmpl_qwen25, NULL, NULL).think == 0 && from_text(tmpl_smollm2, NULL, NULL).think == 0,
          "Qwen3's reasoning rules recognised (think), not in Qwen2.5's or SmolLM2's templates");
    t = from_text(tmpl_llama32, NULL, NULL);
    CHECK(strlen(t.date) == 11 && t.date[2] == ' ' && t.date[6] == ' ' && !strcmp(t.stop[0], "<|eot_id|>") && !strcmp(t.bos, "<|begin_of_text|>"),
          "Llama 3.2 asks for strftime_now: today's date \"%s\"; stops at <|eot_id|>", t.date);
    t = from_text(tmpl_smollm2, "<|im_start|>", "<|im_end|>");
    CHECK(!strcmp(t.bos, "<|im_start|>") && !strcmp(t.eos, "<|im_end|>") && !strcmp(t.stop[0], "<|im_end|>"), "bos/eos texts are taken as given");
    g_log[0] = 0;
    t = from_text("{% for m in messages %}{{ m.content }}{% endfor %}", NULL, NULL);
    CHECK(t.format == SRT_CHAT_CHATML && t.guessed && strstr(g_log, "not recognised; using ChatML"), "an unknown template: ChatML with a warning (%s)", g_log);
    g_log[0] = 0;
    t = from_text(NULL, NULL, NULL);
    CHECK(t.format == SRT_CHAT_CHATML && t.guessed && strstr(g_log, "no chat template"), "no template: ChatML with a warning");
    g_log[0] = 0;
    t = from_text("{{ bos_token }}{% for m in messages %}{{ '[INST]' + m.content + '[/INST]' }}{% endfor %}", NULL, NULL);
    CHECK(t.format == SRT_CHAT_MISTRAL && t.guessed && strstr(g_log, "no known variant"), "an [INST] template of no known variant: mistral, flagged");
    srt_set_log(NULL, NULL);
}

static void test_render(void) {
    srt_chat_template t;
    char small[16];
    size_t len = 0;
    srt_status st;

    t = from_text(tmpl_smollm2, NULL, NULL);
    expect(&t, conv_sua, 4, 1, "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n", "SmolLM2 system+user+assistant+user");
    expect(&t, conv_ua, 3, 1, "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n", "SmolLM2 without a system message (its default one)");
    expect(&t, conv_ua, 3, 0, "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n", "SmolLM2 without generation prompt");
    expect(&t, conv_u, 1, 1, "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\n Hi there \n<|im_end|>\n<|im_start|>assistant\n", "SmolLM2 untrimmed content");
    t = from_text(tmpl_qwen25, NULL, NULL);
    expect(&t, conv_ua, 3, 1, "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n", "Qwen2.5 (default system prompt)");
    {   /* Qwen3: reasoning dropped from earlier replies, kept (or an empty block) after the last query */
        static const srt_chat_message hi[2] = {{"user", "Hi"}, {"assistant", "Hello"}};
        static const srt_chat_message two[4] = {{"system", "S"}, {"user", "Q1"}, {"assistant", "<think>\nR1\n</think>\n\nA1"}, {"user", "Q2"}};
        static const srt_chat_message kept[2] = {{"user", "Q"}, {"assistant", "\n<think>\n\nR\n\n</think>\n\n\nA"}};
        static const srt_chat_message tool[3] = {{"user", "Q"}, {"assistant", "<think>R</think>A"}, {"user", "<tool_response>x</tool_response>"}};
        static const srt_chat_message odd[4] = {{"user", "Q"}, {"assistant", "a<think>b<think>\nR</think>x</think>\n\nA"}, {"user", "Q2"}, {"assistant", "plain"}};
        t = from_text(tmpl_qwen3, NULL, NULL);
        expect(&t, hi, 2, 0, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>\n", "Qwen3, a last reply without reasoning (an empty block)");
        expect(&t, two, 4, 1, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n", "Qwen3, an earlier reply without its reasoning");
        expect(&t, kept, 2, 0, "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\nR\n</think>\n\nA<|im_end|>\n", "Qwen3, the last reply's reasoning kept, newlines normalized");
        expect(&t, tool, 3, 0, "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\nR\n</think>\n\nA<|im_end|>\n<|im_start|>user\n<tool_response>x</tool_response><|im_end|>\n", "Qwen3, a tool response is not a query: the reply before it keeps its reasoning");
        expect(&t, odd, 4, 0, "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nplain<|im_end|>\n", "Qwen3, several think tags: the answer after the last </think>");
        t.no_think = 1;
        expect(&t, two, 4, 1, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n", "Qwen3 with no_think (enable_thinking=false): an empty reasoning block opens the reply");
        t = from_text(tmpl_qwen25, NULL, NULL);
        t.no_think = 1;
        expect(&t, kept, 2, 1, "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n\n<think>\n\nR\n\n</think>\n\n\nA<|im_end|>\n<|im_start|>assistant\n", "Qwen2.5: replies as they are, no_think changes nothing");
    }

    t = from_text(tmpl_llama3, "<|begin_of_text|>", "<|eot_id|>");
    expect(&t, conv_sua, 4, 1, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "Llama 3 system+user+assistant+user");
    expect(&t, conv_ua, 3, 0, "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>", "Llama 3 without generation prompt");
    expect(&t, conv_u, 1, 1, "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "Llama 3 trimmed content");
    t = from_text(tmpl_llama32, "<|begin_of_text|>", "<|eot_id|>");
    strcpy(t.date, "26 Jul 2024");
    expect(&t, conv_sua, 4, 1, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nYou are terse.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "Llama 3.2 with a system message");
    expect(&t, conv_ua, 3, 1, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "Llama 3.2 without one (empty dated system block)");
    expect(&t, conv_u, 1, 0, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>", "Llama 3.2 trimmed, no generation prompt");

    t = from_text(tmpl_llama2, "<s>", "</s>");
    expect(&t, conv_sua, 4, 1, "<s>[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nHi there [/INST] Hello! </s><s>[INST] What is 2+2? [/INST]", "Llama 2 with <<SYS>>");
    expect(&t, conv_ua, 3, 0, "<s>[INST] Hi there [/INST] Hello! </s><s>[INST] What is 2+2? [/INST]", "Llama 2 without system");
    expect(&t, conv_u, 1, 1, "<s>[INST] Hi there [/INST]", "Llama 2 stripped content");
    t = from_text(tmpl_mistral1, "<s>", "</s>");
    expect(&t, conv_sua, 4, 1, "<s> [INST] You are terse.\n\nHi there [/INST] Hello!</s> [INST] What is 2+2? [/INST]", "Mistral v0.1 / Mixtral with system");
    expect(&t, conv_ua, 3, 1, "<s> [INST] Hi there [/INST] Hello!</s> [INST] What is 2+2? [/INST]", "Mistral v0.1 / Mixtral");
    expect(&t, conv_u, 1, 1, "<s> [INST]  Hi there \n [/INST]", "Mistral v0.1 untrimmed content");
    t = from_text(tmpl_mistral3, "<s>", "</s>");
    expect(&t, conv_sua, 4, 1, "<s>[INST] Hi there[/INST] Hello!</s>[INST] You are terse.\n\nWhat is 2+2?[/INST]", "Mistral v0.3 (system in the last user turn)");
    expect(&t, conv_ua, 3, 0, "<s>[INST] Hi there[/INST] Hello!</s>[INST] What is 2+2?[/INST]", "Mistral v0.3");
    expect(&t, conv_u, 1, 1, "<s>[INST]  Hi there \n[/INST]", "Mistral v0.3 untrimmed user content");
    t = from_text(tmpl_phi3, "<s>", "<|endoftext|>");
    expect(&t, conv_sua, 4, 1, "<|system|>\nYou are terse.<|end|>\n<|user|>\nHi there<|end|>\n<|assistant|>\nHello!<|end|>\n<|user|>\nWhat is 2+2?<|end|>\n<|assistant|>\n", "Phi-3 with system");
    expect(&t, conv_ua, 3, 0, "<|user|>\nHi there<|end|>\n<|assistant|>\nHello!<|end|>\n<|user|>\nWhat is 2+2?<|end|>\n<|endoftext|>", "Phi-3 without generation prompt (ends with EOS)");
    expect(&t, conv_u, 1, 1, "<|user|>\n Hi there \n<|end|>\n<|assistant|>\n", "Phi-3 untrimmed content");
    t = from_text(tmpl_zephyr, "<s>", "</s>");
    expect(&t, conv_sua, 4, 1, "<|system|>\nYou are terse.</s>\n<|user|>\nHi there</s>\n<|assistant|>\nHello!</s>\n<|user|>\nWhat is 2+2?</s>\n<|assistant|>\n", "Zephyr with system");
    expect(&t, conv_ua, 3, 0, "<|user|>\nHi there</s>\n<|assistant|>\nHello!</s>\n<|user|>\nWhat is 2+2?</s>\n", "Zephyr without generation prompt");
    expect(&t, conv_u, 1, 1, "<|user|>\n Hi there \n</s>\n<|assistant|>\n", "Zephyr untrimmed content");
    t = from_text(tmpl_tulu, "<|endoftext|>", "<|endoftext|>");
    expect(&t, conv_sua, 4, 1, "<|endoftext|><|system|>\nYou are terse.\n<|user|>\nHi there\n<|assistant|>\nHello!<|endoftext|>\n<|user|>\nWhat is 2+2?\n<|assistant|>\n", "OLMo 2 (Tulu) with system");
    expect(&t, conv_ua, 2, 0, "<|endoftext|><|user|>\nHi there\n<|assistant|>\nHello!<|endoftext|>", "OLMo 2 (Tulu): a last reply has EOS, no newline");
    expect(&t, conv_u, 1, 1, "<|endoftext|><|user|>\n Hi there \n\n<|assistant|>\n", "OLMo 2 (Tulu) untrimmed content");
    CHECK(!strcmp(t.stop[0], "<|endoftext|>"), "OLMo 2 (Tulu): a reply ends at <|endoftext|>");
    {   /* Granite 3.1: a system turn always; without the conversation's, the cutoff, today's date ("%B %d, %Y", UTC) and the identity */
        char today[64], want[2048];
        time_t now = time(NULL);
        strftime(today, sizeof today, "%B %d, %Y", gmtime(&now));
        t = from_text(tmpl_granite31, "<|end_of_text|>", "<|end_of_text|>");
        snprintf(want, sizeof want, "Knowledge Cutoff Date: April 2024.\nToday's Date: %s.\nYou are Granite, developed by IBM. You are a helpful AI assistant.", today);
        CHECK(!strcmp(t.default_system, want) && !strcmp(t.stop[0], "<|end_of_text|>"), "Granite 3.1: the default system turn with today's date (%s); "
              "replies end at <|end_of_text|>", today);
        expect(&t, conv_sua, 4, 1, "<|start_of_role|>system<|end_of_role|>You are terse.<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>Hi there<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>Hello!<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>What is 2+2?<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>", "Granite with system");
        strcpy(t.default_system, "D");
        expect(&t, conv_ua, 3, 0, "<|start_of_role|>system<|end_of_role|>D<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>Hi there<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>Hello!<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>What is 2+2?<|end_of_text|>\n", "Granite without system (its default), no generation prompt");
        expect(&t, conv_u, 1, 1, "<|start_of_role|>system<|end_of_role|>D<|end_of_text|>\n<|start_of_role|>user<|end_of_role|> Hi there \n<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>", "Granite untrimmed content");
        t = from_text(tmpl_granite_thinking, NULL, NULL);   /* its default path: the same text */
        CHECK(t.format == SRT_CHAT_GRANITE && !strcmp(t.default_system, want), "a later Granite template (thinking and tools controls): "
              "the same default system turn");
        strcpy(t.default_system, "D");
        expect(&t, conv_ua, 3, 1, "<|start_of_role|>system<|end_of_role|>D<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>Hi there<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>Hello!<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>What is 2+2?<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>", "a later Granite template (the generation prompt after the last turn's end)");
        t = from_text("{{- '<|start_of_role|>system<|end_of_role|>' + 'You are Granite, developed by IBM. You are a helpful AI assistant.' }}", NULL, NULL);
        CHECK(t.format == SRT_CHAT_GRANITE && !strcmp(t.default_system, "You are Granite, developed by IBM. You are a helpful AI assistant."),
              "a Granite template without the dated lines: the identity alone as the default system turn");
    }
    {   /* EXAONE 4.0: "[|role|]\n" lines, "[|endofturn|]\n" after every turn; a reply after an empty reasoning block, its own reasoning dropped */
        static const srt_chat_message think[3] = {{"user", "Q"}, {"assistant", "<think>\nR\n</think>\n\n A \n"}, {"assistant", ""}};
        t = from_text(tmpl_exaone4, "[BOS]", "[|endofturn|]");
        CHECK(!strcmp(t.stop[0], "[|endofturn|]") && !t.default_system[0], "EXAONE 4.0: replies end at [|endofturn|]; no default system turn");
        expect(&t, conv_sua, 4, 1, "[|system|]\nYou are terse.[|endofturn|]\n[|user|]\nHi there[|endofturn|]\n[|assistant|]\n<think>\n\n</think>\n\nHello![|endofturn|]\n[|user|]\nWhat is 2+2?[|endofturn|]\n[|assistant|]\n<think>\n\n</think>\n\n", "EXAONE 4.0 with system");
        expect(&t, conv_u, 1, 0, "[|user|]\n Hi there \n[|endofturn|]\n", "EXAONE 4.0 untrimmed content, no generation prompt");
        expect(&t, think, 3, 0, "[|user|]\nQ[|endofturn|]\n[|assistant|]\n<think>\n\n</think>\n\nA[|endofturn|]\n[|assistant|]\n[|endofturn|]\n", "EXAONE 4.0: a reply's reasoning dropped (the answer stripped), an empty reply without a block");
    }
    {   /* EXAONE 3.5: "[|role|]" and the content on one line, a user turn ended by a newline, the others by "[|endofturn|]\n" */
        static const srt_chat_message sys_only[1] = {{"system", "S"}};
        t = from_text(tmpl_exaone35, NULL, NULL);
        CHECK(t.format == SRT_CHAT_EXAONE3 && !t.guessed && !strcmp(t.stop[0], "[|endofturn|]") && !strcmp(t.eos, "[|endofturn|]") && !t.default_system[0],
              "EXAONE 3.5's template is exaone3 (not exaone4's): replies end at [|endofturn|]");
        expect(&t, conv_sua, 4, 1, "[|system|]You are terse.[|endofturn|]\n[|user|]Hi there\n[|assistant|]Hello![|endofturn|]\n[|user|]What is 2+2?\n[|assistant|]", "EXAONE 3.5 with system");
        expect(&t, conv_ua, 3, 0, "[|system|][|endofturn|]\n[|user|]Hi there\n[|assistant|]Hello![|endofturn|]\n[|user|]What is 2+2?\n", "EXAONE 3.5 without system (an empty system turn), no generation prompt");
        expect(&t, conv_u, 1, 1, "[|system|][|endofturn|]\n[|user|] Hi there \n\n[|assistant|]", "EXAONE 3.5 untrimmed content");
        expect(&t, sys_only, 1, 1, "[|system|]S[|endofturn|]\n[|assistant|]", "EXAONE 3.5, a system message alone");
        expect(&t, conv_u, 0, 1, "[|assistant|]", "EXAONE 3.5, no messages: the generation prompt alone");
        g_log[0] = 0;
        t = from_text("{% for message in messages %}{% if loop.first and message['role'] != 'system' %}{{ '[|system|][|endofturn|]\\n' }}{% endif %}"
                      "{{ '[|' + message['role'] + '|]' + message['content'] }}{% if add_generation_prompt %}{{ '\\n[|assistant|]<thought>\\n' }}{% endif %}", NULL, NULL);
        CHECK(t.format == SRT_CHAT_CHATML && t.guessed, "EXAONE Deep's template (its <thought> replies, another layout) is not taken for EXAONE 3.5's");
    }
    {   /* OLMo 3 Think: the default system turn, a system message's functions sentence, a last reply's EOS, "<think>" opening the reply */
        static const srt_chat_message ua_last[2] = {{"user", "Hi there"}, {"assistant", "Hello!"}};
        char want[2048];
        t = from_text(tmpl_olmo3_think, NULL, "<|endoftext|>");
        CHECK(!strcmp(t.stop[0], "<|im_end|>") && !strcmp(t.stop[1], "<|endoftext|>"), "OLMo 3 Think: replies end at <|im_end|> or <|endoftext|>");
        expect(&t, conv_sua, 4, 1, "<|im_start|>system\nYou are terse. You do not currently have access to any functions. <functions></functions><|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<think>", "OLMo 3 Think with system");
        snprintf(want, sizeof want, "<|im_start|>system\n%s<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\nHello!<|endoftext|>", t.default_system);
        expect(&t, ua_last, 2, 0, want, "OLMo 3 Think without system (its default turn), a last reply (EOS)");
        t.default_system[0] = 0;
        expect(&t, conv_u, 1, 1, "<|im_start|>user\n Hi there \n<|im_end|>\n<|im_start|>assistant\n<think>", "OLMo 3 Think untrimmed content");
    }
    {   /* gpt-oss (harmony): the fixed system message with today's date, the conversation's system message as the developer's, replies as their
           final channel (the reasoning dropped), a last reply with <|return|> */
        static const srt_chat_message channels[4] = {{"system", ""}, {"user", "Q"}, {"assistant", "<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>A"},
                                                     {"assistant", "<|channel|>analysis<|message|>cut short"}};
        static const char *const head = "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n"
                                        "Current date: 2025-08-05\n\nReasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for "
                                        "every message.<|end|>";
        char today[32], want[2048];
        time_t now = time(NULL);
        strftime(today, sizeof today, "%Y-%m-%d", gmtime(&now));
        t = from_text(tmpl_gpt_oss, NULL, NULL);
        CHECK(!strcmp(t.date, today) && !strcmp(t.stop[0], "<|return|>") && !strcmp(t.stop[1], "<|call|>"), "gpt-oss: today's date (%s); replies end at "
              "<|return|> or <|call|>", t.date);
        strcpy(t.date, "2025-08-05");
        snprintf(want, sizeof want, "%s<|start|>developer<|message|># Instructions\n\nYou are terse.\n\n<|end|><|start|>user<|message|>Hi there<|end|>"
                 "<|start|>assistant<|channel|>final<|message|>Hello!<|end|><|start|>user<|message|>What is 2+2?<|end|><|start|>assistant", head);
        expect(&t, conv_sua, 4, 1, want, "gpt-oss with system (the developer message)");
        snprintf(want, sizeof want, "%s<|start|>user<|message|>Hi there<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|>", head);
        expect(&t, conv_ua, 2, 0, want, "gpt-oss without system, a last reply (<|return|>)");
        snprintf(want, sizeof want, "%s<|start|>user<|message|>Q<|end|><|start|>assistant<|channel|>final<|message|>A<|end|>"
                 "<|start|>assistant<|channel|>final<|message|><|end|><|start|>assistant", head);
        expect(&t, channels, 4, 1, want, "gpt-oss: an empty system message writes no developer message; a reply's final channel kept, a reply cut short in "
               "its reasoning empty");
        strcpy(t.reasoning, "high");
        snprintf(want, sizeof want, "%.*shigh%s<|start|>user<|message|> Hi there \n<|end|><|start|>assistant", (int)(strstr(head, "medium") - head), head,
                 strstr(head, "medium") + 6);
        expect(&t, conv_u, 1, 1, want, "gpt-oss with reasoning \"high\" (the template's reasoning_effort)");
    }
    t = from_text(tmpl_minicpm, "<s>", "</s>");   /* the reply follows <AI>; contents stripped (llama.cpp's test case renders the same) */
    CHECK(!strcmp(t.stop[0], "</s>"), "MiniCPM: replies end at </s>");
    expect(&t, conv_sua, 4, 1, "You are terse.<\xe7\x94\xa8\xe6\x88\xb7>Hi there<AI>Hello!<\xe7\x94\xa8\xe6\x88\xb7>What is 2+2?<AI>", "MiniCPM with system");
    expect(&t, conv_u, 1, 0, "<\xe7\x94\xa8\xe6\x88\xb7>Hi there<AI>", "MiniCPM stripped content");
    t = from_text(tmpl_gemma2, "<bos>", "<eos>");
    expect(&t, conv_ua, 3, 1, "<bos><start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n", "Gemma 2");
    expect(&t, conv_u, 1, 0, "<bos><start_of_turn>user\nHi there<end_of_turn>\n", "Gemma trimmed, no generation prompt");
    t = from_text(tmpl_gemma3, "<bos>", "<eos>");
    expect(&t, conv_sua, 4, 1, "<bos><start_of_turn>user\nYou are terse.\n\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n", "Gemma 3 (system prefixes the first user turn)");

    /* buffers, roles, arguments */
    t = from_text(tmpl_smollm2, NULL, NULL);
    st = srt_chat_render(&t, conv_ua, 3, 1, small, sizeof small, &len);
    CHECK(st == SRT_ERR_INVALID_ARG && len == 235 && strlen(small) == 15 && !strncmp(small, "<|im_start|>sys", 15), "a small buffer: truncated, NUL-terminated, full length reported (%u)", (unsigned)len);
    st = srt_chat_render(&t, conv_ua, 3, 1, NULL, 0, &len);
    CHECK(st == SRT_ERR_INVALID_ARG && len == 235, "cap 0 measures");
    {
        srt_chat_message tool[2] = {{"user", "q"}, {"tool", "42"}};
        char buf[256];
        t = from_text(tmpl_llama2, "<s>", "</s>");
        CHECK(srt_chat_render(&t, tool, 2, 1, buf, sizeof buf, &len) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "has no role 'tool'"),
              "llama2 refuses a role it cannot express: %s", srt_last_error());
        t = from_text(tmpl_smollm2, NULL, NULL);
        tool[0].role = "system";
        expect(&t, tool, 2, 0, "<|im_start|>system\nq<|im_end|>\n<|im_start|>tool\n42<|im_end|>\n", "ChatML with any role");
        tool[1].content = NULL;
        CHECK(srt_chat_render(&t, tool, 2, 0, buf, sizeof buf, &len) == SRT_ERR_INVALID_ARG, "a message without content is refused");
        expect(&t, tool, 0, 1, "<|im_start|>assistant\n", "no messages, generation prompt only");
    }
}

/* ---------------------------------------------------------------- from a model */
/* srt_model_load on one thread (the tests' models are tiny) */
static srt_status load_1t(const char *path, srt_model **m) {
    srt_model_desc md;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    return srt_model_load(path, &md, m);
}

static int write_vocab_model(const char *path, const char *chat_template) {
    srt_writer *w;
    const char *tokens[5] = {"<unk>", "<|begin_of_text|>", "<|eot_id|>", "a", "b"};
    int32_t types[5] = {2, 3, 3, 1, 1};
    float scores[5] = {0, 0, 0, -1, -2};
    if (srt_writer_open(path, &w) != SRT_OK) return 0;
    srt_writer_meta_str(w, "general.architecture", "llama");
    srt_writer_meta_str(w, "tokenizer.ggml.model", "llama");
    srt_writer_meta_arr(w, "tokenizer.ggml.tokens", SRT_META_ARR_STR, tokens, 5);
    srt_writer_meta_arr(w, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, 5);
    srt_writer_meta_arr(w, "tokenizer.ggml.scores", SRT_META_ARR_F32, scores, 5);
    srt_writer_meta_u32(w, "tokenizer.ggml.bos_token_id", 1);
    srt_writer_meta_u32(w, "tokenizer.ggml.eos_token_id", 2);
    if (chat_template) srt_writer_meta_str(w, "tokenizer.chat_template", chat_template);
    return srt_writer_finish(w) == SRT_OK;
}

/* srt_chat_reply_split: a reply's reasoning and answer in each kind of format, also part-way through. */
static void split_is(srt_chat_format f, int think, const char *reply, const char *reasoning, const char *answer, const char *what) {
    srt_chat_template t;
    srt_chat_reply_parts p;
    memset(&t, 0, sizeof t);
    t.format = f; t.think = think;
    srt_chat_reply_split(&t, reply, &p);
    const int reasons = f == SRT_CHAT_HARMONY || think || f == SRT_CHAT_OLMO3 || f == SRT_CHAT_EXAONE4;
    CHECK(p.reasoning_len == strlen(reasoning) && !strncmp(p.reasoning, reasoning, p.reasoning_len) && p.answer_len == strlen(answer) &&
              !strncmp(p.answer, answer, p.answer_len) && p.reasons == reasons,
          "reply split, %s: reasoning \"%.*s\", answer \"%.*s\", %s", what, (int)p.reasoning_len, p.reasoning, (int)p.answer_len, p.answer,
          reasons ? "a format with reasoning" : "no reasoning format");
}
static void test_reply_split(void) {
    srt_chat_reply_parts p;
    split_is(SRT_CHAT_HARMONY, 0, "<|channel|>analysis<|message|>R1<|end|><|start|>assistant<|channel|>final<|message|>A1", "R1", "A1", "harmony");
    split_is(SRT_CHAT_HARMONY, 0, "<|channel|>analysis<|message|>thin", "thin", "", "harmony while reasoning");
    split_is(SRT_CHAT_HARMONY, 0, "<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>fin", "R", "", "harmony, the final header arriving");
    split_is(SRT_CHAT_HARMONY, 0, "<|channel|>final<|message|>A<|return|>", "", "A", "harmony without reasoning");
    split_is(SRT_CHAT_HARMONY, 0, "<|channel|>analysis<|message|>R<|end|><|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>", "R", "",
             "harmony, a tool call");
    split_is(SRT_CHAT_HARMONY, 0, "no channels", "", "no channels", "harmony without channels");
    split_is(SRT_CHAT_CHATML, 1, "<think>\nR\n</think>\n\nA", "\nR\n", "A", "Qwen3 think");
    split_is(SRT_CHAT_CHATML, 1, "<think>\nR so fa", "\nR so fa", "", "Qwen3 think while reasoning");
    split_is(SRT_CHAT_CHATML, 1, "plain", "", "plain", "Qwen3 think, a reply without reasoning");
    split_is(SRT_CHAT_OLMO3, 0, "R</think>A", "R", "A", "OLMo 3 Think (its prompt opens the block)");
    split_is(SRT_CHAT_OLMO3, 0, "R so far", "R so far", "", "OLMo 3 Think while reasoning");
    split_is(SRT_CHAT_EXAONE4, 0, "A plain", "", "A plain", "EXAONE 4.0 (its prompt closes the block)");
    split_is(SRT_CHAT_CHATML, 0, "<think>x</think>y", "", "<think>x</think>y", "ChatML without reasoning rules: all answer");
    split_is(SRT_CHAT_LLAMA3, 0, "", "", "", "an empty reply");
    srt_chat_reply_split(NULL, NULL, &p);
    srt_chat_reply_split(NULL, "x", NULL);
    CHECK(p.reasoning_len == 0 && p.answer_len == 0 && p.answer && !p.answer[0] && !p.reasons,
          "reply split: a NULL template and reply give empty spans and no reasoning format; a NULL out is ignored");
}

static void test_from_model(void) {
    srt_model *m = NULL;
    srt_chat_template t;
    if (!write_vocab_model(TMP "/l32.srt", tmpl_llama32) || load_1t(TMP "/l32.srt", &m) != SRT_OK) { CHECK(0, "vocab model: %s", srt_last_error()); return; }
    CHECK(srt_chat_template_from_model(m, NULL, &t) == SRT_OK && t.format == SRT_CHAT_LLAMA3 && t.dated_system && !t.guessed &&
          !strcmp(t.bos, "<|begin_of_text|>") && !strcmp(t.eos, "<|eot_id|>"), "from the model: the stored Llama 3.2 template, the model's BOS/EOS texts");
    CHECK(srt_chat_template_from_model(m, "chatml", &t) == SRT_OK && t.format == SRT_CHAT_CHATML && !t.guessed && !t.default_system[0],
          "by name: chatml (the stored template is of another format and adds nothing)");
    CHECK(srt_chat_template_from_model(m, "llama3", &t) == SRT_OK && t.dated_system, "by name llama3: the stored 3.2 template's dated system block is kept");
    CHECK(srt_chat_template_from_model(m, "jinja2", &t) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "unknown chat template 'jinja2' (chatml, llama3,"),
          "an unknown name is refused with the list: %s", srt_last_error());
    srt_model_free(m);
    m = NULL;
    srt_set_log(capture_log, NULL);
    g_log[0] = 0;
    if (write_vocab_model(TMP "/none.srt", NULL) && load_1t(TMP "/none.srt", &m) == SRT_OK) {
        CHECK(srt_chat_template_from_model(m, NULL, &t) == SRT_OK && t.format == SRT_CHAT_CHATML && t.guessed && strstr(g_log, "no chat template"),
              "a model without a template: ChatML, guessed, with a warning");
    } else CHECK(0, "vocab model without template");
    srt_set_log(NULL, NULL);
    srt_model_free(m);
}

/* ---------------------------------------------------------------- srt-chat */
static int run(const char *cmd) { return system(cmd); }

/* Runs PROG (srt-chat or a build of it) with ARGS (stdout to out.txt, stderr to err.txt); returns
   stdout (NULL if it failed), *err = stderr. */
static char *prog_out(const char *prog, const char *args, char **err) {
    char cmd[1024];
    size_t n;
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "%s -m " TMP "/stories.srt -t 1 -n 16 %s >" TMP "/out.txt 2>" TMP "/err.txt", prog, args);
    if (run(cmd) == 0) out = srt_test_read_file(TMP "/out.txt", &n);
    if (err) *err = srt_test_read_file(TMP "/err.txt", &n);
    return out;
}
static char *chat_out(const char *args, char **err) { return prog_out("build/srt-chat", args, err); }
static int same_text(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* --prompt-cache: a second run reads the prompt's beginning from the file and writes exactly what
   a run without it writes; a damaged or foreign file is not used (and written again). */
static void test_prompt_cache(void) {
    char *plain, *first, *second, *other, *other_plain, *err = NULL, *sys1, *sys2, *sys3, *sys_plain;
    remove(TMP "/p.state"); remove(TMP "/c.state");
    plain = chat_out("-p 'Once upon a time there was a little girl named Lily' --temp 0.8 --seed 3", NULL);
    first = chat_out("-p 'Once upon a time there was a little girl named Lily' --temp 0.8 --seed 3 --prompt-cache " TMP "/p.state", NULL);
    second = chat_out("-p 'Once upon a time there was a little girl named Lily' --temp 0.8 --seed 3 --prompt-cache " TMP "/p.state", &err);
    CHECK(plain && same_text(plain, first) && same_text(plain, second), "--prompt-cache: the first and the second run write what a run without it writes");
    CHECK(err && strstr(err, "[prompt cache: 14 of the prompt's 14 tokens read from") && strstr(err, "[prompt: 0 tokens"),
          "the second run reads the whole prompt from the cache and evaluates nothing of it");
    free(err); err = NULL;
    /* another seed: the run's own seed rules, not the one saved with the prompt */
    other = chat_out("-p 'Once upon a time there was a little girl named Lily' --temp 0.8 --seed 4 --prompt-cache " TMP "/p.state", NULL);
    other_plain = chat_out("-p 'Once upon a time there was a little girl named Lily' --temp 0.8 --seed 4", NULL);
    CHECK(other && same_text(other, other_plain) && !same_text(other, plain), "--seed 4 with the cache saved by --seed 3 samples what --seed 4 samples");
    free(other); free(other_plain);
    /* a prompt that begins the same way: its beginning is read, the rest evaluated */
    other = chat_out("-p 'Once upon a time there was a little boy' --temp 0 --prompt-cache " TMP "/p.state", &err);
    other_plain = chat_out("-p 'Once upon a time there was a little boy' --temp 0", NULL);
    CHECK(other && same_text(other, other_plain) && err && strstr(err, "[prompt cache: 9 of the prompt's 12 tokens") && strstr(err, "[prompt: 3 tokens"),
          "a prompt sharing 9 tokens with the cached one: 3 evaluated, the text as without the cache");
    free(other); free(other_plain); free(err); err = NULL;
    /* damaged: half the file */
    {
        size_t n = 0;
        char *st = srt_test_read_file(TMP "/p.state", &n);
        FILE *f = fopen(TMP "/p.state", "wb");
        if (f && st) fwrite(st, 1, n / 2, f);
        if (f) fclose(f);
        free(st);
    }
    other = chat_out("-p 'Once upon a time there was a little boy' --temp 0 --prompt-cache " TMP "/p.state", &err);
    other_plain = chat_out("-p 'Once upon a time there was a little boy' --temp 0", NULL);
    CHECK(same_text(other, other_plain) && err && strstr(err, "the prompt cache is not used") && strstr(err, "truncated"),
          "a damaged cache is not used, says why (truncated), and the output is the same");
    free(other); free(err); err = NULL;
    other = chat_out("-p 'Once upon a time there was a little boy' --temp 0 --prompt-cache " TMP "/p.state", &err);
    CHECK(same_text(other, other_plain) && err && strstr(err, "[prompt cache: 12 of the prompt's 12 tokens"), "it was written again");
    free(other); free(other_plain); free(err); err = NULL;
    other = chat_out("-p 'Once upon a time' --temp 0 --kv q8 --prompt-cache " TMP "/p.state", &err);
    CHECK(other && err && strstr(err, "the prompt cache is not used") && strstr(err, "its KV cache is f16, this session's is q8"),
          "a cache of another KV type is not used, and the message says so");
    free(other); free(err); err = NULL;
    CHECK(run("build/srt-chat -m " TMP "/stories.srt --no-chat --prompt-cache " TMP "/p.state </dev/null >" TMP "/out.txt 2>" TMP "/err.txt") != 0,
          "--prompt-cache without a prompt or a chat is refused");
    /* a chat: the system block and the first message; another first message keeps the system block */
    sys1 = chat_out("--template chatml --system 'You tell short stories about cats and dogs.' --chat -p Lily --temp 0 --prompt-cache " TMP "/c.state", NULL);
    sys2 = chat_out("--template chatml --system 'You tell short stories about cats and dogs.' --chat -p Lily --temp 0 --prompt-cache " TMP "/c.state", &err);
    CHECK(sys1 && same_text(sys1, sys2) && err && strstr(err, "[prompt cache: 88 of the prompt's 88 tokens") && strstr(err, "[prompt: 0 new tokens"),
          "a chat: the second run reads the rendered first turn from the cache, same reply");
    free(err); err = NULL;
    sys3 = chat_out("--template chatml --system 'You tell short stories about cats and dogs.' --chat -p Tom --temp 0 --prompt-cache " TMP "/c.state", &err);
    sys_plain = chat_out("--template chatml --system 'You tell short stories about cats and dogs.' --chat -p Tom --temp 0", NULL);
    CHECK(sys3 && same_text(sys3, sys_plain) && err && strstr(err, "[prompt cache: 61 of the prompt's 88 tokens"),
          "another first message: the system block comes from the cache, the reply is the uncached one");
    free(err); err = NULL;
    /* /reset keeps the system block in the KV cache, and the same message gets the same reply */
    CHECK(run("printf 'Lily\\n/reset\\nLily\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --system 'You tell short stories about cats and dogs.' "
              "--temp 0.8 --show-prompt >" TMP "/out.txt 2>" TMP "/err.txt") == 0, "srt-chat: a turn, /reset, the same turn");
    {
        size_t n = 0;
        char *out = srt_test_read_file(TMP "/out.txt", &n), *e = srt_test_read_file(TMP "/err.txt", &n), *nl = out ? strchr(out, '\n') : NULL;
        CHECK(nl && strlen(nl + 1) == (size_t)(nl - out + 1) && !strncmp(out, nl + 1, (size_t)(nl - out)),
              "after /reset the same message gets the same reply (the sampler starts from its seed again)");
        CHECK(e && strstr(e, "[feed 88 tokens, the first 88 already in the KV cache"), "after /reset the first turn, still in the KV cache, is not read again");
        free(out); free(e);
    }
    free(plain); free(first); free(second); free(sys1); free(sys2); free(sys3); free(sys_plain);
    /* /save and /load: a conversation taken up in another run goes on as it would have */
    remove(TMP "/conv.state");
    CHECK(run("printf 'Once upon a time\\n/save " TMP "/conv.state\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --temp 0 "
              ">" TMP "/a.txt 2>" TMP "/ae.txt") == 0 &&
          run("printf '/load " TMP "/nothing.state\\n/load " TMP "/conv.state\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --temp 0 "
              ">" TMP "/b.txt 2>" TMP "/be.txt") == 0, "srt-chat: a turn, /save, a turn; then /load and the same turn in another run");
    {
        size_t n = 0;
        char *a = srt_test_read_file(TMP "/a.txt", &n), *b = srt_test_read_file(TMP "/b.txt", &n), *ae = srt_test_read_file(TMP "/ae.txt", &n),
             *be = srt_test_read_file(TMP "/be.txt", &n);
        size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0;   /* a: both replies (either may hold newlines), b: the second */
        CHECK(a && b && lb > 1 && la > lb && !memcmp(a + la - lb, b, lb), "the loaded conversation answers the second message as the first run did");
        CHECK(ae && strstr(ae, "(saved to " TMP "/conv.state: 2 messages, ") && be && strstr(be, "(loaded " TMP "/conv.state: 2 messages, "),
              "/save and /load say what they kept");
        CHECK(be && strstr(be, "srt-chat: cannot load: ") && strstr(be, "nothing.state"), "/load of a missing file says so, and the chat goes on");
        {   /* only the new turn was read: the same prompt count in both runs */
            const char *pa = ae ? strstr(ae, "[prompt: ") : NULL, *pa2 = pa ? strstr(pa + 1, "[prompt: ") : NULL, *pb = be ? strstr(be, "[prompt: ") : NULL;
            CHECK(pa2 && pb && atoi(pa2 + 9) == atoi(pb + 9) && atoi(pb + 9) > 0, "after /load only the new turn is read (%d tokens)", pb ? atoi(pb + 9) : -1);
        }
        free(a); free(b); free(ae); free(be);
    }
    /* /save after /reset holds nothing of the conversation before it (only the system message's
       tokens stay), and the chat it holds goes on as a new one */
    remove(TMP "/conv.state");
    CHECK(run("printf 'Once upon a time\\n/reset\\n/save " TMP "/conv.state\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --system 'Tell stories.' "
              "--temp 0 >/dev/null 2>" TMP "/ae.txt") == 0 &&
          run("printf '/load " TMP "/conv.state\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --system 'Tell stories.' --show-prompt "
              "--temp 0 >" TMP "/b.txt 2>" TMP "/be.txt") == 0 &&
          run("printf 'The cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --system 'Tell stories.' --temp 0 >" TMP "/c.txt 2>/dev/null") == 0,
          "srt-chat: a turn, /reset, /save; then /load and a turn, and the same turn alone");
    {
        size_t n = 0;
        char *ae = srt_test_read_file(TMP "/ae.txt", &n), *b = srt_test_read_file(TMP "/b.txt", &n), *be = srt_test_read_file(TMP "/be.txt", &n),
             *c = srt_test_read_file(TMP "/c.txt", &n);
        const char *saved = ae ? strstr(ae, "(saved to " TMP "/conv.state: 1 messages, ") : NULL, *fed = be ? strstr(be, "[feed ") : NULL;
        int kept = saved ? atoi(saved + strlen("(saved to " TMP "/conv.state: 1 messages, ")) : -1, first = ae ? atoi(strstr(ae, "[prompt: ") ? strstr(ae, "[prompt: ") + 9 : "0") : 0;
        CHECK(kept > 0 && kept < first, "/save after /reset keeps only the system message's tokens (%d of the first turn's %d)", kept, first);
        CHECK(fed && atoi(fed + 6) > kept && strstr(fed, " already in the KV cache") && atoi(strstr(fed, ", the first ") ? strstr(fed, ", the first ") + 12 : "0") == kept,
              "the loaded chat's first turn reuses those tokens (%s)", fed ? "[feed ...]" : "no feed line");
        CHECK(b && c && strlen(b) > 1 && !strcmp(b, c), "and its reply is that of a new chat");
        free(ae); free(b); free(be); free(c);
    }
    /* /save after an /undo keeps only what the KV cache holds (not the exchange taken back) */
    CHECK(run("printf 'Once upon a time\\nThe cat sat\\n/undo\\n/save " TMP "/conv.state\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml "
              "--temp 0 >" TMP "/a.txt 2>/dev/null") == 0 &&
          run("printf '/load " TMP "/conv.state\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --temp 0 >" TMP "/b.txt 2>" TMP "/be.txt") == 0,
          "srt-chat: two turns, /undo, /save, a turn; then /load and the same turn");
    {
        size_t n = 0;
        char *a = srt_test_read_file(TMP "/a.txt", &n), *b = srt_test_read_file(TMP "/b.txt", &n), *be = srt_test_read_file(TMP "/be.txt", &n);
        size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0;
        CHECK(a && b && lb > 1 && la > lb && !memcmp(a + la - lb, b, lb), "after /undo and /save the loaded conversation answers as the first run did (its last reply)");
        CHECK(be && !strstr(be, "reading the conversation again"), "the saved text is what the KV cache holds: the loaded chat goes on without reading it again");
        free(a); free(b); free(be);
    }
}

static void test_srt_chat(void) {
    char *err_text, *out_text;
    size_t n;
    if (run("build/srt-pack -q --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin " SRT_SHARED "/models/stories260K/stories260K.bin " TMP "/stories.srt") != 0) {
        CHECK(0, "pack stories260K");
        return;
    }
    CHECK(run("printf 'Once upon a time\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt --template chatml --system 'Tell stories.' --show-prompt "
              "-n 12 --temp 0 -t 1 >" TMP "/out.txt 2>" TMP "/err.txt") == 0, "srt-chat: two chat turns on stdin");
    err_text = srt_test_read_file(TMP "/err.txt", &n);
    out_text = srt_test_read_file(TMP "/out.txt", &n);
    if (err_text && out_text) {
        const char *first = strstr(err_text, "[feed "), *second = first ? strstr(first + 1, "[feed ") : NULL;
        CHECK(first && !strncmp(strchr(first, '"'), "\"<|im_start|>system\nTell stories.<|im_end|>\n<|im_start|>user\nOnce upon a time<|im_end|>\n<|im_start|>assistant\n\"]", 91),
              "turn 1 feeds the rendered conversation");
        CHECK(second && !strncmp(strchr(second, '"'), "\"<|im_end|>\n<|im_start|>user\nThe cat sat<|im_end|>\n<|im_start|>assistant\n\"]", 71) &&
              !strstr(err_text, "reading the conversation again"),
              "turn 2 feeds only the new turn (the cut reply is closed with <|im_end|>); earlier turns stay in the KV cache");
        CHECK(strstr(err_text, "context 152/512]") != NULL, "the KV cache holds both turns (76 + 12 + 52 + 12 tokens)");
        CHECK(strlen(out_text) > 10 && strchr(out_text, '\n') != strrchr(out_text, '\n'), "two replies on stdout");
    } else CHECK(0, "read srt-chat's output");
    free(err_text); free(out_text);

    CHECK(run("printf 'Once upon a time\\nThe cat sat on the mat and\\nhello there\\nanother line of text\\n' | build/srt-chat -m " TMP "/stories.srt "
              "--template chatml -c 64 -n 16 --temp 0 -t 1 >" TMP "/out.txt 2>" TMP "/err.txt") == 0, "srt-chat: four turns in a 64-token context");
    err_text = srt_test_read_file(TMP "/err.txt", &n);
    CHECK(err_text && strstr(err_text, "(context window full: the 1 oldest turns were dropped; ") != NULL,
          "a full context drops the oldest turns with a clear message");
    free(err_text);
    {   /* with a system message its tokens stay in the KV cache when the oldest turns go */
        int kept = 0, sys = 0;
        const char *at;
        CHECK(run("printf 'Once upon a time\\nThe cat sat on the mat and\\nhello there\\n' | build/srt-chat -m " TMP "/stories.srt --template chatml --system 'Be nice.' "
                  "-c 80 -n 16 --temp 0 -t 1 --show-prompt >" TMP "/out.txt 2>" TMP "/err.txt") == 0 && (err_text = srt_test_read_file(TMP "/err.txt", &n)) != NULL,
              "srt-chat: a system message and three turns in an 80-token context");
        at = err_text ? strstr(err_text, "oldest turns were dropped; ") : NULL;
        if (at) kept = atoi(at + strlen("oldest turns were dropped; "));
        if (err_text && (at = strstr(err_text, "[feed ")) != NULL) sys = atoi(at + 6);   /* turn 1: system block + first message */
        CHECK(at && kept > 20 && kept < sys, "the dropped turns are read again after the %d tokens kept (the system block; turn 1 fed %d)", kept, sys);
        free(err_text);
        err_text = NULL;
    }
    CHECK(run("build/srt-chat -m " TMP "/stories.srt --template llama2 --chat -p 'Lily' -n 8 --temp 0 -t 1 --show-prompt >" TMP "/out.txt 2>" TMP "/err.txt") == 0,
          "srt-chat --chat -p: one user message");
    err_text = srt_test_read_file(TMP "/err.txt", &n);
    CHECK(err_text && strstr(err_text, "[feed 17 tokens: \"<s>[INST] Lily [/INST]\"]"), "the Llama 2 prompt: <s> is one token (BOS), then 16 text tokens");
    free(err_text);
    CHECK(run("build/srt-chat --template list -m x > " TMP "/out.txt") == 0 && (out_text = srt_test_read_file(TMP "/out.txt", &n)) != NULL &&
          !strcmp(out_text, "chatml\nllama3\nllama2\nmistral\nmistral-v3\nphi3\nzephyr\ngemma\ntulu\ngranite\nexaone4\nminicpm\nolmo3\nharmony\nsmollm3\nexaone3\n"), "srt-chat --template list");
    free(out_text);
    CHECK(run("build/srt-chat -m " TMP "/stories.srt --template nope -p x 2>/dev/null") != 0, "srt-chat --template with an unknown name fails");
    CHECK(run("build/srt-chat -m " TMP "/stories.srt -p 'Once upon a time' -n 4 --temp 0 -t 1 >" TMP "/out.txt 2>/dev/null") == 0 &&
          (out_text = srt_test_read_file(TMP "/out.txt", &n)) != NULL && !strncmp(out_text, "Once upon a time", 16), "plain -p still continues text");
    free(out_text);
    out_text = NULL;
    CHECK(run("build/srt-chat -m " TMP "/stories.srt -p 'Once upon a time' -n 16 --temp 0 -t 1 --kv q8 >" TMP "/out.txt 2>/dev/null") == 0 &&
          (out_text = srt_test_read_file(TMP "/out.txt", &n)) != NULL && !strncmp(out_text, "Once upon a time", 16) && n > 30, "srt-chat --kv q8 continues text");
    free(out_text);
    out_text = NULL;
    {   /* /retry answers the last message again (greedy: the same reply); /undo takes the exchange back,
           so the next message is answered as if it came first */
        char *a = NULL, *b = NULL, *c = NULL, *e = NULL, *want = NULL;
        size_t na = 0, nb = 0, nc = 0, ne = 0;
        int ran = run("printf 'Once upon a time\\n/retry\\n/undo\\n/undo\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt --template chatml -n 12 --temp 0 -t 1 >" TMP "/a.txt 2>" TMP "/e.txt") == 0 &&
                  run("printf 'The cat sat\\n' | build/srt-chat -m " TMP "/stories.srt --template chatml -n 12 --temp 0 -t 1 >" TMP "/b.txt 2>/dev/null") == 0 &&
                  run("printf 'Once upon a time\\n' | build/srt-chat -m " TMP "/stories.srt --template chatml -n 12 --temp 0 -t 1 >" TMP "/c.txt 2>/dev/null") == 0;
        a = srt_test_read_file(TMP "/a.txt", &na); b = srt_test_read_file(TMP "/b.txt", &nb); c = srt_test_read_file(TMP "/c.txt", &nc); e = srt_test_read_file(TMP "/e.txt", &ne);
        if (ran && a && b && c && e && nc > 1 && (want = (char *)malloc(2 * nc + nb + 1)) != NULL) {
            memcpy(want, c, nc); memcpy(want + nc, c, nc); memcpy(want + 2 * nc, b, nb);
            CHECK(na == 2 * nc + nb && memcmp(a, want, na) == 0, "srt-chat /retry gives the reply again, /undo takes the exchange back (%zu bytes, expected %zu)", na, 2 * nc + nb);
            CHECK(strstr(e, "(last exchange taken back)") && strstr(e, "(nothing to take back)"), "srt-chat /undo says what it did, and that a second one has nothing to take back");
        } else CHECK(0, "srt-chat /retry and /undo runs");
        free(a); free(b); free(c); free(e); free(want);
    }
    test_prompt_cache();
    CHECK(run("build/srt-chat -m " TMP "/stories.srt -p x --kv q4 2>" TMP "/err.txt") != 0 && (out_text = srt_test_read_file(TMP "/err.txt", &n)) != NULL &&
          strstr(out_text, "f16, f32 or q8"), "srt-chat --kv q4 fails and names the choices");
    free(out_text);
}

/* ---------------------------------------------------------------- srt_chat (the API the apps use) */
static srt_model *g_api_model;
typedef struct api_chat { srt_session *s; srt_chat *c; } api_chat;
static int api_open(srt_model *m, int n_ctx, const char *sys, int max_tokens, api_chat *a) {
    srt_session_desc sd;
    srt_chat_desc cd;
    memset(&sd, 0, sizeof sd);
    memset(&cd, 0, sizeof cd);
    memset(a, 0, sizeof *a);
    sd.n_ctx = n_ctx;
    cd.template_name = "chatml"; cd.system_prompt = sys; cd.max_tokens = max_tokens;
    if (srt_session_create(m, &sd, &a->s) != SRT_OK) return 0;
    if (srt_chat_create(a->s, &cd, &a->c) != SRT_OK) { srt_session_destroy(a->s); a->s = NULL; return 0; }
    return 1;
}
static void api_close(api_chat *a) { srt_chat_destroy(a->c); srt_session_destroy(a->s); memset(a, 0, sizeof *a); }
/* Draws the reply to its end into buf (its tokens' bytes, as the reply message should hold them). */
static int api_draw(api_chat *a, char *buf, size_t cap, int *n_tokens) {
    int32_t tok;
    int end = SRT_CHAT_GOING, n = 0;
    size_t len = 0;
    srt_status st;
    buf[0] = 0;
    while ((st = srt_chat_next(a->c, &tok, &end)) == SRT_OK && end == SRT_CHAT_GOING) {
        char piece[256];
        int k = srt_token_bytes(g_api_model, tok, piece, (int)sizeof piece);
        if (k > 0 && len + (size_t)k < cap) { memcpy(buf + len, piece, (size_t)k); len += (size_t)k; buf[len] = 0; }
        n++;
    }
    if (n_tokens) *n_tokens = n;
    return st == SRT_OK ? end : -1;
}
static const char *api_last(api_chat *a) {
    int n = 0;
    const srt_chat_message *m = srt_chat_messages(a->c, &n);
    return n ? m[n - 1].content : "";
}
static int api_count(api_chat *a) { int n = 0; srt_chat_messages(a->c, &n); return n; }
/* The render of the chat's messages (the whole conversation as the template writes it). */
static char *api_render(api_chat *a, int gen) {
    int n = 0;
    const srt_chat_message *m = srt_chat_messages(a->c, &n);
    size_t len = 0;
    char *buf;
    srt_chat_render(srt_chat_get_template(a->c), m, n, gen, NULL, 0, &len);
    if (!(buf = (char *)malloc(len + 1)) || srt_chat_render(srt_chat_get_template(a->c), m, n, gen, buf, len + 1, &len) != SRT_OK) { free(buf); return NULL; }
    return buf;
}

static void test_chat_api(void) {
    srt_session_desc sd;
    srt_chat_desc cd;
    srt_chat_turn t1, t2, t;
    api_chat a, b;
    srt_chat *c = NULL;
    srt_session *s0 = NULL;
    char r1[4096], r2[4096], r3[4096], r[4096], text1[4096], *full, *fed;
    int32_t tok;
    int end, n1, pos1, pos2, pos_u2, n;
    srt_status st;
    memset(&t1, 0, sizeof t1); memset(&t2, 0, sizeof t2); memset(&t, 0, sizeof t);
    if (load_1t(TMP "/stories.srt", &g_api_model) != SRT_OK) { CHECK(0, "srt_chat: load stories260K: %s", srt_last_error()); return; }
    /* refusals */
    memset(&sd, 0, sizeof sd);
    memset(&cd, 0, sizeof cd);
    CHECK(srt_chat_create(NULL, &cd, &c) == SRT_ERR_INVALID_ARG && !c, "srt_chat_create without a session: SRT_ERR_INVALID_ARG");
    if (srt_session_create(g_api_model, &sd, &s0) == SRT_OK) {
        cd.template_name = "nope";
        CHECK(srt_chat_create(s0, &cd, &c) == SRT_ERR_INVALID_ARG && !c, "srt_chat_create with an unknown template: SRT_ERR_INVALID_ARG");
        cd.template_name = NULL; cd.max_tokens = -1;
        CHECK(srt_chat_create(s0, &cd, &c) == SRT_ERR_INVALID_ARG && !c && strstr(srt_last_error(), "max_tokens"), "a negative max_tokens: SRT_ERR_INVALID_ARG");
        srt_session_destroy(s0);
    }
    if (!api_open(g_api_model, 0, "Tell stories.", 12, &a)) { CHECK(0, "srt_chat_create: %s", srt_last_error()); srt_model_free(g_api_model); return; }
    CHECK(srt_chat_next(a.c, &tok, &end) == SRT_ERR_INVALID_ARG && tok == -1 && strstr(srt_last_error(), "no reply is open"), "srt_chat_next before a message: no reply is open");
    CHECK(srt_chat_regenerate(a.c) == SRT_ERR_INVALID_ARG && srt_chat_undo(a.c) == SRT_ERR_INVALID_ARG, "regenerate and undo before a message: nothing to do, and said so");
    CHECK(srt_chat_send(a.c, NULL, &t) == SRT_ERR_INVALID_ARG && api_count(&a) == 1, "srt_chat_send(NULL): refused, the conversation is the system message");

    /* turn 1: the whole rendering is fed; the reply grows as the last message */
    st = srt_chat_send(a.c, "Once upon a time", &t1);
    CHECK(st == SRT_OK && t1.from_start && !t1.rerendered && t1.n_kept == 0 &&
          t1.n_prompt == t1.n_tokens && t1.n_tokens == srt_session_pos(a.s) && t1.n_tokens > 20 && api_count(&a) == 3 && !strcmp(api_last(&a), ""),
          "turn 1 feeds %d tokens from the start and opens an empty assistant message", t1.n_tokens);
    full = api_render(&a, 0);   /* the empty assistant message renders as its opening, then <|im_end|> */
    snprintf(text1, sizeof text1, "%.*s", (int)t1.text_len, t1.text ? t1.text : "");
    CHECK(full && t1.text && t1.text_len < sizeof text1 && !strncmp(full, text1, t1.text_len) && !strcmp(text1 + t1.text_len - 22, "<|im_start|>assistant\n"),
          "turn 1's text is the rendering of the system and user messages with the assistant's opening");
    free(full);
    end = api_draw(&a, r1, sizeof r1, &n1);
    pos1 = srt_session_pos(a.s);
    CHECK(end == SRT_CHAT_END_LIMIT && n1 == 12 && pos1 == t1.n_tokens + 12, "max_tokens 12: the reply ends with SRT_CHAT_END_LIMIT after 12 tokens (%d)", n1);
    CHECK(!strcmp(api_last(&a), r1) && strlen(r1) > 10, "the assistant message holds the reply's text: \"%s\"", r1);
    CHECK(srt_chat_next(a.c, &tok, &end) == SRT_ERR_INVALID_ARG, "srt_chat_next after the end of the reply: no reply is open");

    /* turn 2: only what the conversation adds is fed */
    st = srt_chat_send(a.c, "The cat sat", &t2);
    CHECK(st == SRT_OK && !t2.from_start && t2.n_kept == pos1 && t2.n_prompt == t2.n_tokens &&
          srt_session_pos(a.s) == pos1 + t2.n_prompt && !strncmp(t2.text, "<|im_end|>\n<|im_start|>user\nThe cat sat<|im_end|>\n", 50),
          "turn 2 feeds only its %d tokens after the %d kept (the cut reply is closed first)", t2.n_tokens, t2.n_kept);
    {   /* what was fed so far is the conversation as the template renders it: turn 1, the reply, turn 2 */
        int nm = 0;
        const srt_chat_message *m = srt_chat_messages(a.c, &nm);
        size_t len = 0;
        srt_chat_render(srt_chat_get_template(a.c), m, 4, 1, NULL, 0, &len);
        full = (char *)malloc(len + 1);
        fed = (char *)malloc(strlen(text1) + strlen(r1) + t2.text_len + 1);
        if (full && fed && srt_chat_render(srt_chat_get_template(a.c), m, 4, 1, full, len + 1, &len) == SRT_OK) {
            strcpy(fed, text1); strcat(fed, r1); strncat(fed, t2.text, t2.text_len);
            CHECK(nm == 5 && !strcmp(fed, full), "turn 1 + reply + turn 2 is the rendering of the conversation, byte for byte");
        } else CHECK(0, "render the conversation");
        free(full); free(fed);
    }
    pos_u2 = srt_session_pos(a.s);
    api_draw(&a, r2, sizeof r2, NULL);
    CHECK(api_count(&a) == 5 && !strcmp(api_last(&a), r2), "two exchanges: system, user, assistant, user, assistant");

    /* regenerate: greedy gives the same reply again from the same place, and the conversation goes
       on from it without feeding anything again */
    CHECK(srt_chat_regenerate(a.c) == SRT_OK && srt_session_pos(a.s) == pos_u2 && !strcmp(api_last(&a), ""), "regenerate: the session is back where the reply began, the reply is empty");
    api_draw(&a, r, sizeof r, NULL);
    CHECK(!strcmp(r, r2) && !strcmp(api_last(&a), r2), "greedy: the regenerated reply is the same");
    pos2 = srt_session_pos(a.s);
    st = srt_chat_send(a.c, "The dog ran", &t);
    n = t.n_prompt;
    CHECK(st == SRT_OK && !t.from_start && !t.rerendered && t.n_kept == pos2, "after a regenerated reply the next turn feeds only itself (%d tokens after %d)", n, t.n_kept);
    api_draw(&a, r3, sizeof r3, NULL);
    /* undo: the exchange goes, once */
    CHECK(srt_chat_undo(a.c) == SRT_OK && api_count(&a) == 5 && srt_session_pos(a.s) == pos2 && !strcmp(api_last(&a), r2), "undo: the last exchange is taken back (messages and tokens)");
    CHECK(srt_chat_undo(a.c) == SRT_ERR_INVALID_ARG && srt_chat_regenerate(a.c) == SRT_ERR_INVALID_ARG && api_count(&a) == 5, "a second undo, or a regenerate after undo: nothing to do");
    st = srt_chat_send(a.c, "The dog ran", &t);
    CHECK(st == SRT_OK && !t.from_start && !t.rerendered && t.n_kept == pos2 && t.n_prompt == n, "after undo the same message feeds the same tokens");
    api_draw(&a, r, sizeof r, NULL);
    CHECK(!strcmp(r, r3), "and gets the same reply");

    /* save and load: the chat goes on in another session as it would have here */
    st = srt_chat_save(a.c, TMP "/api.state");
    CHECK(st == SRT_OK, "srt_chat_save: %s", st == SRT_OK ? "ok" : srt_last_error());
    if (api_open(g_api_model, 0, NULL, 12, &b)) {
        const srt_chat_message *ma, *mb;
        int na = 0, nb = 0, i, same;
        CHECK(srt_chat_load(b.c, TMP "/nothing.state") != SRT_OK && api_count(&b) == 0 && srt_session_pos(b.s) == 0, "loading a missing file fails and changes nothing");
        st = srt_chat_load(b.c, TMP "/api.state");
        CHECK(st == SRT_OK && srt_session_pos(b.s) == srt_session_pos(a.s), "srt_chat_load: %s", st == SRT_OK ? "the saved tokens" : srt_last_error());
        ma = srt_chat_messages(a.c, &na); mb = srt_chat_messages(b.c, &nb);
        same = na == nb;
        for (i = 0; same && i < na; i++) same = !strcmp(ma[i].role, mb[i].role) && !strcmp(ma[i].content, mb[i].content);
        CHECK(same && na == 7, "the loaded chat holds the saved messages (%d)", nb);
        st = srt_chat_send(a.c, "Lily", &t1);
        if (st == SRT_OK) st = srt_chat_send(b.c, "Lily", &t2);
        CHECK(st == SRT_OK && !t2.from_start && t1.n_prompt == t2.n_prompt &&
              t1.text_len == t2.text_len && !memcmp(t1.text, t2.text, t1.text_len), "the next turn feeds the same %d tokens in both", t2.n_prompt);
        api_draw(&a, r1, sizeof r1, NULL); api_draw(&b, r2, sizeof r2, NULL);
        CHECK(!strcmp(r1, r2) && strlen(r1) > 5, "and both answer the same");
        api_close(&b);
    } else CHECK(0, "second chat");
    {   /* a file without the fed text (another app's): the next turn feeds the conversation from its
           start and keeps the tokens it begins with; one whose fed text the template does not
           render: the same, said as rerendered */
        srt_chat_message m[3] = {{"system", "Tell stories."}, {"user", "Once upon a time"}, {"srt-chat:fed", "<|im_start|>nothing like it"}};
        if (api_open(g_api_model, 0, NULL, 4, &b)) {
            srt_session_truncate(a.s, t1.n_kept);   /* a's tokens: the conversation up to the last turn (a's chat is reset below) */
            st = srt_session_save_chat(a.s, TMP "/nofed.state", m, 2);
            if (st == SRT_OK) st = srt_chat_load(b.c, TMP "/nofed.state");
            if (st == SRT_OK) st = srt_chat_send(b.c, "Lily", &t);
            CHECK(st == SRT_OK && t.from_start && !t.rerendered && t.n_kept > 20 && t.n_prompt > 0 && t.n_prompt < t.n_tokens,
                  "a file without fed text: turn fed from the start, its first %d tokens kept", t.n_kept);
            st = srt_session_save_chat(a.s, TMP "/badfed.state", m, 3);
            if (st == SRT_OK) st = srt_chat_load(b.c, TMP "/badfed.state");
            n = api_count(&b);
            if (st == SRT_OK) st = srt_chat_send(b.c, "Lily", &t);
            CHECK(st == SRT_OK && n == 2 && t.from_start && t.rerendered && t.n_kept > 20,
                  "fed text the conversation does not begin with: fed from the start (rerendered), %d tokens kept", t.n_kept);
            srt_session_reset(b.s);   /* fed text (that the conversation begins with) and no tokens: fed from the start */
            m[2].content = "<|im_start|>system\nTell stories.<|im_end|>\n";
            st = srt_session_save_chat(b.s, TMP "/notokens.state", m, 3);
            if (st == SRT_OK) st = srt_chat_load(b.c, TMP "/notokens.state");
            if (st == SRT_OK) st = srt_chat_send(b.c, "Lily", &t);
            CHECK(st == SRT_OK && t.from_start && t.n_kept == 0 && t.n_prompt == srt_session_pos(b.s), "fed text in a file without tokens: the turn is fed from the start (%d tokens)", t.n_prompt);
            api_close(&b);
        }
    }
    /* reset: the system message stays, and so do the tokens the next turn begins with */
    n = srt_session_pos(a.s);
    srt_chat_reset(a.c);
    CHECK(api_count(&a) == 1 && srt_session_pos(a.s) == n, "reset: the system message is the conversation; the session keeps its tokens");
    st = srt_chat_save(a.c, TMP "/reset.state");
    CHECK(st == SRT_OK && srt_session_pos(a.s) > 5 && srt_session_pos(a.s) < t1.n_tokens,
          "a save after reset keeps only the system message's %d tokens", srt_session_pos(a.s));
    st = srt_chat_send(a.c, "Once upon a time", &t);
    CHECK(st == SRT_OK && t.from_start && t.n_kept == srt_session_pos(a.s) - t.n_prompt && t.n_kept > 5,
          "the first turn after reset keeps the %d tokens of the system message", t.n_kept);
    /* cancel: nothing is drawn, the reply stays open */
    srt_session_cancel(a.s);
    n = srt_session_pos(a.s);
    CHECK(srt_chat_next(a.c, &tok, &end) == SRT_ERR_CANCELLED && srt_session_pos(a.s) == n && srt_chat_next(a.c, &tok, &end) == SRT_OK && end == SRT_CHAT_GOING,
          "srt_session_cancel: srt_chat_next returns SRT_ERR_CANCELLED and goes on when called again");
    api_close(&a);

    /* a small context: the oldest exchanges make room, the system message stays; a message that
       cannot fit is refused and leaves everything as it was */
    if (api_open(g_api_model, 96, "Be nice.", 16, &a)) {
        static const char *msgs[4] = {"Once upon a time", "The cat sat on the mat and", "hello there", "another line of text"};
        int dropped = 0, i;
        for (i = 0; i < 4; i++) {
            if (srt_chat_send(a.c, msgs[i], &t) != SRT_OK) break;
            dropped += t.n_dropped;
            CHECK(!t.n_dropped || (t.from_start && t.n_kept > 5 && !strcmp(srt_chat_messages(a.c, NULL)[0].role, "system")),
                  "turn %d: %d exchanges dropped, the system message's %d tokens kept", i + 1, t.n_dropped, t.n_kept);
            api_draw(&a, r, sizeof r, NULL);
            CHECK(srt_session_pos(a.s) <= 96, "turn %d fits the context (%d)", i + 1, srt_session_pos(a.s));
        }
        CHECK(i == 4 && dropped > 0 && api_count(&a) < 9, "four turns in 96 tokens: %d exchanges dropped, %d messages left", dropped, api_count(&a));
        n = srt_session_pos(a.s);
        i = api_count(&a);
        {
            char big[2000];
            int k;
            for (k = 0; k + 6 < (int)sizeof big; k += 5) memcpy(big + k, "word ", 5);
            big[k] = 0;
            CHECK(srt_chat_send(a.c, big, &t) == SRT_ERR_CONTEXT_FULL && strstr(srt_last_error(), "does not fit into the context window of 96"),
                  "a message longer than the context: SRT_ERR_CONTEXT_FULL (%s)", srt_last_error());
        }
        CHECK(api_count(&a) <= i && srt_chat_next(a.c, &tok, &end) == SRT_ERR_INVALID_ARG, "the refused message is not kept and no reply opens");
        api_close(&a);
    }
    srt_model_free(g_api_model);
    g_api_model = NULL;
}

/* Random conversations, driven twice: chat A as it goes, chat B the same but moved into a fresh
   session through srt_chat_save / srt_chat_load before many of its turns. Both must say the same
   (statuses, what each turn fed, every token drawn, the messages), sampled at a temperature so
   that the sampler's state travels too; each turn's text must be what the template renders; the
   context must never overflow. */
static int api_open_sampled(srt_model *m, api_chat *a) {
    srt_session_desc sd;
    srt_chat_desc cd;
    memset(&sd, 0, sizeof sd);
    memset(&cd, 0, sizeof cd);
    memset(a, 0, sizeof *a);
    sd.n_ctx = 160;
    sd.sampler.temperature = 0.8f; sd.sampler.seed = 7;
    cd.template_name = "chatml"; cd.system_prompt = "Tell stories."; cd.max_tokens = 10;
    if (srt_session_create(m, &sd, &a->s) != SRT_OK) return 0;
    if (srt_chat_create(a->s, &cd, &a->c) != SRT_OK) { srt_session_destroy(a->s); a->s = NULL; return 0; }
    return 1;
}
static int same_turn(const srt_chat_turn *x, const srt_chat_turn *y) {
    return x->n_dropped == y->n_dropped && x->from_start == y->from_start && x->rerendered == y->rerendered && x->n_tokens == y->n_tokens &&
           x->n_kept == y->n_kept && x->n_prompt == y->n_prompt && x->text_len == y->text_len && (!x->text_len || !memcmp(x->text, y->text, x->text_len));
}
static int same_messages(api_chat *a, api_chat *b) {
    int na = 0, nb = 0, i;
    const srt_chat_message *ma = srt_chat_messages(a->c, &na), *mb = srt_chat_messages(b->c, &nb);
    if (na != nb) return 0;
    for (i = 0; i < na; i++) if (strcmp(ma[i].role, mb[i].role) || strcmp(ma[i].content, mb[i].content)) return 0;
    return 1;
}
static void test_chat_random(void) {
    static const char *lines[6] = {"Once upon a time", "The cat sat", "Lily", "Tell me about the dog and the big red ball in the park", "hi", "Why?"};
    api_chat a, b;
    uint32_t rng = 12345;
    int op, bad = 0, sends = 0, reloads = 0, drops = 0, last_was_draw = 0, ops = 0;
    if (load_1t(TMP "/stories.srt", &g_api_model) != SRT_OK) { CHECK(0, "random chats: load: %s", srt_last_error()); return; }
    if (!api_open_sampled(g_api_model, &a) || !api_open_sampled(g_api_model, &b)) { CHECK(0, "random chats: open"); srt_model_free(g_api_model); return; }
    for (op = 0; op < 200 && !bad; op++) {
        int kind;
        srt_status sa, sb;
        rng = rng * 1103515245u + 12345u;
        kind = (int)((rng >> 16) % 10);
        ops++;
        if (kind < 4) {   /* send, often after moving B into a new session through a file */
            srt_chat_turn ta, tb;
            const char *line = lines[(rng >> 8) % 6];
            char *full;
            if (last_was_draw && (rng >> 4) % 2) {
                api_chat nb;
                if (srt_chat_save(b.c, TMP "/random.state") != SRT_OK || !api_open_sampled(g_api_model, &nb) || srt_chat_load(nb.c, TMP "/random.state") != SRT_OK) {
                    CHECK(0, "random chats, op %d: save and load B: %s", op, srt_last_error()); bad = 1; break;
                }
                api_close(&b);
                b = nb;
                reloads++;
            }
            sa = srt_chat_send(a.c, line, &ta);
            sb = srt_chat_send(b.c, line, &tb);
            sends++;
            drops += ta.n_dropped;
            if (sa != sb || (sa == SRT_OK && !same_turn(&ta, &tb))) { CHECK(0, "random chats, op %d: send \"%s\": %d/%d, fed %d/%d tokens, kept %d/%d, from_start %d/%d, rerendered %d/%d, dropped %d/%d [%.*s] [%.*s]", op, line, sa, sb, ta.n_prompt, tb.n_prompt, ta.n_kept, tb.n_kept, ta.from_start, tb.from_start, ta.rerendered, tb.rerendered, ta.n_dropped, tb.n_dropped, (int)ta.text_len, ta.text, (int)tb.text_len, tb.text); bad = 1; break; }
            if (sa == SRT_OK) {   /* the text fed ends the rendering of the conversation (all of it when fed from the start) */
                int n = 0;
                const srt_chat_message *m = srt_chat_messages(a.c, &n);
                size_t len = 0;
                srt_chat_render(srt_chat_get_template(a.c), m, n - 1, 1, NULL, 0, &len);
                full = (char *)malloc(len + 1);
                if (!full || srt_chat_render(srt_chat_get_template(a.c), m, n - 1, 1, full, len + 1, &len) != SRT_OK || len < ta.text_len ||
                    memcmp(full + len - ta.text_len, ta.text, ta.text_len) != 0 || (ta.from_start && len != ta.text_len)) {
                    CHECK(0, "random chats, op %d: the text fed is not the end of the rendering%s", op, ta.from_start ? " (from the start: all of it)" : ""); bad = 1;
                }
                free(full);
            }
            last_was_draw = 0;
        } else if (kind < 8) {   /* draw the reply, to its end or (kind 7) a few tokens of it */
            int k, limit = kind == 7 ? 3 : 1000, ea = 0, eb = 0;
            for (k = 0; k < limit && !bad; k++) {
                int32_t xa, xb;
                sa = srt_chat_next(a.c, &xa, &ea);
                sb = srt_chat_next(b.c, &xb, &eb);
                if (sa != sb || xa != xb || ea != eb) { CHECK(0, "random chats, op %d: token %d: %d/%d, %d/%d", op, k, sa, sb, xa, xb); bad = 1; }
                if (sa != SRT_OK || ea != SRT_CHAT_GOING) break;
            }
            last_was_draw = kind != 7 && k > 0;   /* a reply was drawn: the chat has fed text (a save
                                                     keeps every token; with none it drops stale ones) */
        } else if (kind == 8) {   /* undo or regenerate */
            sa = (rng >> 8) % 2 ? srt_chat_undo(a.c) : srt_chat_regenerate(a.c);
            sb = (rng >> 8) % 2 ? srt_chat_undo(b.c) : srt_chat_regenerate(b.c);
            if (sa != sb) { CHECK(0, "random chats, op %d: undo/regenerate %d/%d", op, sa, sb); bad = 1; }
            last_was_draw = 0;
        } else {
            srt_chat_reset(a.c);
            srt_chat_reset(b.c);
            last_was_draw = 0;
        }
        if (!bad && (!same_messages(&a, &b) || srt_session_pos(a.s) != srt_session_pos(b.s) || srt_session_pos(a.s) > 160)) {
            CHECK(0, "random chats, op %d (kind %d): the chats differ: positions %d/%d", op, kind, srt_session_pos(a.s), srt_session_pos(b.s)); bad = 1;
        }
    }
    CHECK(!bad && reloads > 5 && drops > 0, "random chats: %d operations, %d turns, B moved %d times through a file, %d exchanges dropped for room: both chats said the same",
          ops, sends, reloads, drops);
    api_close(&a);
    api_close(&b);
    {   /* reset: the sampler starts from its seed again, so the same message gets the same sampled reply */
        char r1[2048], r2[2048];
        if (api_open_sampled(g_api_model, &a)) {
            srt_chat_send(a.c, "Once upon a time", NULL);
            api_draw(&a, r1, sizeof r1, NULL);
            srt_chat_reset(a.c);
            srt_chat_send(a.c, "Once upon a time", NULL);
            api_draw(&a, r2, sizeof r2, NULL);
            CHECK(strlen(r1) > 5 && !strcmp(r1, r2), "sampled at 0.8: after srt_chat_reset the same message gets the same reply (\"%s\")", r2);
            api_close(&a);
        }
    }
    {   /* a loaded chat whose last token is a control token: the next turn's text begins after it, so
           it gets the dummy-prefix space (as llama.cpp tokenizes text after a special token) */
        static const char *fed = "<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\nA<s>";
        srt_chat_message m[3] = {{"user", "U"}, {"assistant", "A<s>"}, {"srt-chat:fed", NULL}};
        int32_t ids[256], want[256];
        int n = 0, nw = 0;
        srt_chat_turn t;
        m[2].content = fed;
        memset(&t, 0, sizeof t);
        if (api_open_sampled(g_api_model, &a) && api_open_sampled(g_api_model, &b) &&
            srt_tokenize(g_api_model, fed, strlen(fed), SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, ids, 256, &n) == SRT_OK && n > 2 &&
            srt_session_feed(a.s, ids, n) == SRT_OK && srt_session_save_chat(a.s, TMP "/control.state", m, 3) == SRT_OK &&
            srt_chat_load(b.c, TMP "/control.state") == SRT_OK && srt_chat_send(b.c, "hi", &t) == SRT_OK &&
            srt_tokenize(g_api_model, t.text, t.text_len, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, want, 256, &nw) == SRT_OK)
            CHECK(srt_token_bytes(g_api_model, ids[n - 1], NULL, 0) == 0 && !t.from_start && t.n_tokens == nw && nw > 0 &&
                  !memcmp(srt_session_tokens(b.s) + n, want, (size_t)nw * sizeof *want),
                  "after a loaded control token the next turn's text is tokenized as text after a special token (%d tokens)", nw);
        else CHECK(0, "a chat ending in a control token: %s", srt_last_error());
        api_close(&a);
        api_close(&b);
    }
    srt_model_free(g_api_model);
    g_api_model = NULL;
}

/* srt-chat --backend cuda. build/srt-chat-cuda-emu (the CUDA code on the CPU emulator of
   tests/cuda_emu, built by ./build.sh on x86-64) writes what the CPU build writes: greedy and
   sampled, F16 and Q8 KV caches; a conversation saved on one goes on on the other. The nvcc build
   (build/srt-chat-cuda) either does the same or, without a device, fails with the device's error;
   the plain build refuses --backend cuda. */
static int exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}
static void test_cuda_chat(void) {
    static const char *runs[] = {"-p 'Once upon a time' -n 40 --temp 0", "-p 'Once upon a time' -n 40 --temp 0 --kv q8",
                                 "-p 'Lily had a red ball' -n 40 --temp 0.8 --seed 5 -b 4"};
    const char *progs[2] = {"build/srt-chat-cuda-emu", "build/srt-chat-cuda"};
    char *out = NULL, *err = NULL;
    out = chat_out("-p x --backend cuda", &err);
    CHECK(!out && err && strstr(err, "built without CUDA: use build/srt-chat-cuda"), "srt-chat --backend cuda without CUDA: refused, and says which build has it");
    free(out); free(err);
    out = chat_out("-p x --backend metal", &err);
    CHECK(!out && err && strstr(err, "--backend takes cpu or cuda"), "srt-chat --backend with an unknown name is refused");
    free(out); free(err);
    for (int p = 0; p < 2; p++) {
        char args[256];
        if (!exists(progs[p])) { printf("# skipped: %s checks (not built)\n", progs[p]); continue; }
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            char *cpu = chat_out(runs[r], NULL), *gpu;
            snprintf(args, sizeof args, "%s --backend cuda", runs[r]);
            gpu = prog_out(progs[p], args, &err);
            if (p == 1 && !gpu)   /* nvcc's build: the same text, or no device and the reason */
                CHECK(err && strstr(err, "CUDA"), "%s %s: no device, and the error says why: %.200s", progs[p], args, err ? err : "");
            else
                CHECK(cpu && gpu && same_text(cpu, gpu) && strlen(cpu) > 20 && err && strstr(err, "the model runs on cuda: "),
                      "%s %s: the CPU's text (%zu bytes)", progs[p], args, cpu ? strlen(cpu) : 0);
            free(cpu); free(gpu); free(err); err = NULL;
        }
    }
    if (exists(progs[0])) {   /* a conversation: saved on the device, taken up on the CPU, and the other way */
        static const char *where[2][2] = {{"build/srt-chat-cuda-emu --backend cuda", "build/srt-chat"}, {"build/srt-chat", "build/srt-chat-cuda-emu --backend cuda"}};
        char *all = NULL, *a = NULL, *b = NULL;
        size_t n = 0;
        CHECK(run("printf 'Once upon a time\\nThe cat sat\\n' | build/srt-chat -m " TMP "/stories.srt -t 1 -n 12 --template chatml --kv q8 --temp 0 >" TMP "/all.txt 2>/dev/null") == 0 &&
              (all = srt_test_read_file(TMP "/all.txt", &n)) != NULL, "srt-chat: a two-turn chat on the CPU");
        for (int w = 0; w < 2; w++) {
            char cmd[1024], *want = NULL;
            remove(TMP "/conv.state");
            snprintf(cmd, sizeof cmd, "printf 'Once upon a time\\n/save " TMP "/conv.state\\n' | %s -m " TMP "/stories.srt -t 1 -n 12 --template chatml --kv q8 --temp 0 >" TMP "/a.txt 2>/dev/null", where[w][0]);
            int ok = run(cmd) == 0;
            snprintf(cmd, sizeof cmd, "printf '/load " TMP "/conv.state\\nThe cat sat\\n' | %s -m " TMP "/stories.srt -t 1 -n 12 --template chatml --kv q8 --temp 0 >" TMP "/b.txt 2>" TMP "/be.txt", where[w][1]);
            ok = ok && run(cmd) == 0;
            a = srt_test_read_file(TMP "/a.txt", &n); b = srt_test_read_file(TMP "/b.txt", &n);
            if (ok && a && b && (want = (char *)malloc(strlen(a) + strlen(b) + 1)) != NULL) { strcpy(want, a); strcat(want, b); }
            CHECK(want && all && strlen(b) > 1 && !strcmp(want, all), "a q8 chat saved by %s and taken up by %s answers as the CPU alone does", where[w][0], where[w][1]);
            free(a); free(b); free(want);
        }
        free(all);
    }
}

/* A chat over a model with Qwen3's template: the first turn opens the reply with an empty reasoning
   block when no_think is set (and not otherwise); the next turn feeds the conversation again from
   the reply (its template renders it without that block: rerendered) or only the new turn. */
static void test_think_chat(void) {
    srt_model *m = NULL;
    int no_think;
    if (!write_tiny_model_arch(TMP "/qwen3chat.srt", "llama", tmpl_qwen3, SRT_Q8, NULL, NULL, 1) || load_1t(TMP "/qwen3chat.srt", &m) != SRT_OK) {
        CHECK(0, "a tiny model with Qwen3's template: %s", srt_last_error());
        return;
    }
    for (no_think = 0; no_think < 2; no_think++) {
        srt_session_desc sd;
        srt_chat_desc cd;
        srt_session *s = NULL;
        srt_chat *c = NULL;
        srt_chat_turn t1, t2;
        const char *open = no_think ? "<|im_start|>assistant\n<think>\n\n</think>\n\n" : "<|im_start|>assistant\n";
        int32_t tok;
        int end = SRT_CHAT_GOING, drawn = 0, ok;
        memset(&sd, 0, sizeof sd);
        memset(&cd, 0, sizeof cd);
        memset(&t1, 0, sizeof t1);
        memset(&t2, 0, sizeof t2);
        sd.n_ctx = 256;
        cd.max_tokens = 6;
        cd.no_think = no_think;
        if (srt_session_create(m, &sd, &s) != SRT_OK || srt_chat_create(s, &cd, &c) != SRT_OK) { CHECK(0, "qwen3 chat: %s", srt_last_error()); srt_session_destroy(s); break; }
        ok = srt_chat_get_template(c)->think == 1 && srt_chat_send(c, "hello", &t1) == SRT_OK && t1.text_len >= strlen(open) &&
             !strcmp(t1.text + t1.text_len - strlen(open), open) && (no_think || !strstr(t1.text, "<think>"));
        CHECK(ok, "Qwen3 chat%s: the first turn ends with the template's opening of the reply", no_think ? " with no_think" : "");
        while (ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK) drawn++;
        ok = ok && drawn > 0 && srt_chat_send(c, "again", &t2) == SRT_OK;
        if (no_think)
            CHECK(ok && t2.rerendered && t2.from_start && t2.n_kept > 0 && strstr(t2.text, "<think>") == t2.text + t2.text_len - strlen(open) + strlen("<|im_start|>assistant\n"),
                  "the next turn: the reply is fed again without its empty block (rerendered, %d tokens kept); only the new reply opens with one", t2.n_kept);
        else
            CHECK(ok && !t2.rerendered && !t2.from_start && !strstr(t2.text, "<think>"), "the next turn feeds only itself (a reply without reasoning renders as it was fed)");
        srt_chat_destroy(c);
        srt_session_destroy(s);
    }
    srt_model_free(m);
}

/* tokenizer.ggml.eog_token_ids (a Hugging Face folder's eos_token_id lists): its ids end generation, any
   piece; ids outside the vocabulary, another type or more than 16 are refused. */
static void test_eog_list(void) {
    static const uint32_t ids[2] = {290, 291}, bad[1] = {T_V + 3}, many[17] = {0};
    srt_model *m = NULL;
    int ok;
    tiny_eog = ids; tiny_n_eog = 2;
    ok = write_tiny_model_arch(TMP "/eog.srt", "llama", NULL, SRT_Q8, NULL, NULL, 1) && load_1t(TMP "/eog.srt", &m) == SRT_OK;
    CHECK(ok && srt_token_is_eog(m, 290) && srt_token_is_eog(m, 291) && srt_token_is_eog(m, 2) && !srt_token_is_eog(m, 289) && !srt_token_is_eog(m, 292),
          "tokenizer.ggml.eog_token_ids: tokens 290 and 291 end generation (and eos), their neighbours do not");
    srt_model_free(m); m = NULL;
    tiny_eog = bad; tiny_n_eog = 1;
    ok = write_tiny_model_arch(TMP "/eog.srt", "llama", NULL, SRT_Q8, NULL, NULL, 1) && load_1t(TMP "/eog.srt", &m) == SRT_ERR_FORMAT;
    CHECK(ok && strstr(srt_last_error(), "eog_token_ids[0]") && strstr(srt_last_error(), "outside the vocabulary"), "an id outside the vocabulary refused: %s",
          srt_last_error());
    srt_model_free(m); m = NULL;
    tiny_eog = many; tiny_n_eog = 17;
    ok = write_tiny_model_arch(TMP "/eog.srt", "llama", NULL, SRT_Q8, NULL, NULL, 1) && load_1t(TMP "/eog.srt", &m) == SRT_ERR_FORMAT;
    CHECK(ok && strstr(srt_last_error(), "at most 16"), "17 ids refused: %s", srt_last_error());
    srt_model_free(m); m = NULL;
    tiny_eog = ids; tiny_n_eog = 2; tiny_eog_type = SRT_META_ARR_F32;
    ok = write_tiny_model_arch(TMP "/eog.srt", "llama", NULL, SRT_Q8, NULL, NULL, 1) && load_1t(TMP "/eog.srt", &m) == SRT_ERR_FORMAT;
    CHECK(ok && strstr(srt_last_error(), "u32 token ids"), "an f32 array refused: %s", srt_last_error());
    srt_model_free(m);
    tiny_eog = NULL; tiny_n_eog = 0; tiny_eog_type = SRT_META_ARR_U32;
}

/* gpt-oss's harmony on a tiny model with its control tokens: <|end|> (which closes the reasoning inside a reply) does not end
   generation when <|return|> and <|call|> exist, they do; without them <|end|> does (Phi-3). A chat: the first turn ends with
   the reply's opening, the next renders the reply as its final channel and keeps the tokens before it. */
static void test_harmony_chat(void) {
    static const char *const controls[] = {"<|end|>", "<|return|>", "<|call|>", "<|start|>", "<|channel|>", "<|message|>", NULL};
    static const char *const end_only[] = {"<|end|>", NULL};
    srt_model *m = NULL, *phi = NULL;
    srt_session_desc sd;
    srt_chat_desc cd;
    srt_session *s = NULL;
    srt_chat *c = NULL;
    srt_chat_turn t1, t2;
    int32_t tok;
    int end = SRT_CHAT_GOING, ok;
    tiny_controls = end_only;
    ok = write_tiny_model_arch(TMP "/phi.srt", "llama", NULL, SRT_Q8, NULL, NULL, 1) && load_1t(TMP "/phi.srt", &phi) == SRT_OK;
    tiny_controls = controls;
    ok = ok && write_tiny_model_arch(TMP "/harmony.srt", "llama", tmpl_gpt_oss, SRT_Q8, NULL, NULL, 1) && load_1t(TMP "/harmony.srt", &m) == SRT_OK;
    tiny_controls = NULL;
    CHECK(ok && !srt_token_is_eog(m, T_V - 1) && srt_token_is_eog(m, T_V - 2) && srt_token_is_eog(m, T_V - 3) && srt_token_is_eog(m, 2) &&
              srt_token_is_eog(phi, T_V - 1),
          "harmony's <|return|> and <|call|> end generation, <|end|> then does not (it does without them, as Phi-3's)");
    memset(&sd, 0, sizeof sd); memset(&cd, 0, sizeof cd); memset(&t1, 0, sizeof t1); memset(&t2, 0, sizeof t2);
    sd.n_ctx = 512;
    cd.max_tokens = 6;
    cd.system_prompt = "Be brief.";
    if (!ok || srt_session_create(m, &sd, &s) != SRT_OK || srt_chat_create(s, &cd, &c) != SRT_OK) { CHECK(0, "harmony chat: %s", srt_last_error()); goto done; }
    ok = srt_chat_get_template(c)->format == SRT_CHAT_HARMONY && srt_chat_send(c, "hello", &t1) == SRT_OK && t1.text_len > 18 &&
         !strcmp(t1.text + t1.text_len - 18, "<|start|>assistant") && strstr(t1.text, "# Instructions\n\nBe brief.\n\n<|end|>");
    CHECK(ok, "harmony chat: the first turn holds the developer message and ends with the reply's opening");
    while (ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK) {}
    ok = ok && srt_chat_send(c, "again", &t2) == SRT_OK;
    CHECK(ok && t2.rerendered && t2.n_kept >= t1.n_kept + t1.n_prompt && strstr(t2.text, "<|channel|>final<|message|>") &&
              strstr(t2.text, "<|start|>user<|message|>again<|end|><|start|>assistant"),
          "harmony chat: the next turn writes the reply as its final channel, the %d tokens before it kept (%d)", t1.n_kept + t1.n_prompt, t2.n_kept);
    {   /* the reasoning effort: low / medium / high into the system message, anything else refused; srt-chat --reasoning */
        srt_chat *c2 = NULL;
        srt_chat_turn t3;
        char *out, *err = NULL;
        size_t n;
        srt_chat_destroy(c);
        c = NULL;
        srt_session_reset(s);
        cd.reasoning = "extreme";
        CHECK(srt_chat_create(s, &cd, &c2) == SRT_ERR_INVALID_ARG && !c2 && strstr(srt_last_error(), "low, medium or high"), "harmony chat: reasoning \"extreme\" "
              "refused (%s)", srt_last_error());
        cd.reasoning = "low";
        ok = srt_chat_create(s, &cd, &c2) == SRT_OK && srt_chat_send(c2, "hi", &t3) == SRT_OK && strstr(t3.text, "\n\nReasoning: low\n\n");
        CHECK(ok, "harmony chat: reasoning \"low\" is written into the system message");
        srt_chat_destroy(c2);
        out = system("build/srt-chat -m " TMP "/harmony.srt -t 1 -c 512 -n 2 --temp 0 --chat --show-prompt --reasoning high -p hi >" TMP "/out.txt 2>" TMP "/err.txt") == 0 ?
              srt_test_read_file(TMP "/out.txt", &n) : NULL;
        err = srt_test_read_file(TMP "/err.txt", &n);
        CHECK(out && err && strstr(err, "Reasoning: high"), "srt-chat --reasoning high: the prompt names it (%s)", err ? err : "no stderr");
        free(out); free(err);
    }
    {   /* tools: the namespace in the first turn; a result with no call before it refused, nothing kept */
        srt_chat *c3 = NULL;
        srt_chat_turn t4;
        srt_chat_message res[1] = {{"tool", "18 C"}};
        int n = 0;
        srt_session_reset(s);
        cd.reasoning = NULL;
        cd.tools = tools_weather;
        ok = srt_chat_create(s, &cd, &c3) == SRT_OK && srt_chat_send(c3, "Weather in Paris?", &t4) == SRT_OK &&
             strstr(t4.text, "commentary channel: 'functions'.<|end|><|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\n## functions\n\n"
                             "namespace functions {\n\n// Weather in a city\ntype get_weather = (_: {\ncity: string,\n}) => any;\n\n} // namespace functions<|end|>");
        while (ok && srt_chat_next(c3, &tok, &end) == SRT_OK && end == SRT_CHAT_GOING) {}
        ok = ok && srt_chat_send_messages(c3, res, 1, NULL) == SRT_ERR_INVALID_ARG && (srt_chat_messages(c3, &n), n == 3);
        CHECK(ok, "harmony chat with tools: the functions namespace in the developer message; a result without a call refused (%s)", srt_last_error());
        srt_chat_destroy(c3);
        cd.tools = NULL;
    }
done:
    srt_chat_destroy(c);
    srt_session_destroy(s);
    srt_model_free(m);
    srt_model_free(phi);
}

/* ---------------------------------------------------------------- tools */
/* What Qwen2.5's template writes between <tools>\n and \n</tools> for these tools ("" when refused). */
static const char *tools_line(const char *tools, char *buf, size_t cap) {
    static const srt_chat_message u[1] = {{"user", "x"}};
    srt_chat_template t = from_text(tmpl_qwen25, NULL, NULL);
    char *a, *b;
    t.tools = tools;
    buf[0] = 0;
    if (srt_chat_render(&t, u, 1, 0, buf, cap, NULL) != SRT_OK) { buf[0] = 0; return buf; }
    a = strstr(buf, "<tools>\n");
    b = strstr(buf, "\n</tools>");
    if (!a || !b) { buf[0] = 0; return buf; }
    memmove(buf, a + 8, (size_t)(b - a - 8));
    buf[b - a - 8] = 0;
    return buf;
}

static void test_tools_render(void) {
    static const srt_chat_message q[6] = {{"user", "Weather in Paris?"}, {"assistant", WEATHER_CALL}, {"tool", "18 C"}, {"tool", "sunny"},
                                          {"assistant", "18 C and sunny."}, {"user", "Thanks"}};
    static const srt_chat_message qs[4] = {{"system", "Be brief."}, {"user", "Weather in Paris?"}, {"assistant", WEATHER_CALL}, {"tool", "18 C"}};
    static const srt_chat_message l[4] = {{"system", " S "}, {"user", " Weather? "}, {"assistant", "{\"name\": \"get_weather\", \"parameters\": {}}"},
                                          {"tool", "{\"t\": 18}\n\xc3\xa9"}};
    const char *const formats_without[] = {tmpl_smollm2, tmpl_llama3, tmpl_gemma3, tmpl_olmo3_think, NULL};
    static const struct { const char *in, *out; } canon[] = {
        {" [ {\"a\" : \"\\u00e9\\ud83d\\ude00\\/\\u0001\\\"\\\\\\n\\t\\b\\f\\r\x7f\" } ] ", "{\"a\": \"\xc3\xa9\xf0\x9f\x98\x80/\\u0001\\\"\\\\\\n\\t\\b\\f\\r\x7f\"}"},
        {"[{\"n\": [0, -0, -2, 12345678901234567890, 1.50, 1e5, 1E-7, -0.0, 0.1, 1e16, 1e15, 123.456e2, 0.0001, 0.00001, 5e-324, 1.7976931348623157e308, 2.5E+3, -1.25e-300]}]",
         "{\"n\": [0, 0, -2, 12345678901234567890, 1.5, 100000.0, 1e-07, -0.0, 0.1, 1e+16, 1000000000000000.0, 12345.6, 0.0001, 1e-05, 5e-324, "
         "1.7976931348623157e+308, 2500.0, -1.25e-300]}"},
        {"[{\"t\":true,\"f\":false,\"z\":null,\"e\":{ },\"l\":[ ],\"k\":{\"\":[[]]}}]", "{\"t\": true, \"f\": false, \"z\": null, \"e\": {}, \"l\": [], \"k\": {\"\": [[]]}}"},
        {"[{\"a\":1},\n{\"b\":2}]", "{\"a\": 1}\n{\"b\": 2}"},
    };
    static const char *const bad[] = {"{}", "[1]", "[{]", "[{\"a\":1}", "[{\"a\":01}]", "[{\"a\":1,}]", "[{\"a\":1}] x", "[{\"a\":\"\xff\"}]",
                                      "[{\"a\":\"\\ud800\"}]", "[{\"a\":\"\\udc00x\"}]", "[{\"a\":\"\x01\"}]", "[{\"a\":1e}]", "[{\"a\":-}]", "[{\"a\":.5}]",
                                      "[{\"a\":tru}]", "[{\"a\":\"\\q\"}]", "[{\"a\":1e999}]", "[{\"a\":\"\xc0\xaf\"}]", "[{a:1}]", "[{\"a\":\"\\u12g4\"}]",
                                      "[{\"a\":\"\xed\xa0\x80\"}]", "[{\"a\" 1}]", "[{}{}]", "[", "", NULL};
    srt_chat_template t;
    char buf[4096], line[2048], deep[400];
    size_t i, len;
    int ok, k;
    srt_status st;

    /* which templates render tools */
    CHECK(from_text(tmpl_qwen25, NULL, NULL).tool_use && from_text(tmpl_qwen3, NULL, NULL).tool_use && from_text(tmpl_llama32, NULL, NULL).tool_use &&
              from_text(tmpl_gpt_oss, NULL, NULL).tool_use, "Qwen2.5's, Qwen3's, Llama 3.2's and gpt-oss's templates render tools (tool_use)");
    for (ok = 1, k = 0; formats_without[k]; k++) ok = ok && !from_text(formats_without[k], NULL, NULL).tool_use;
    CHECK(ok, "SmolLM2's, Llama 3.0's, Gemma 3's and OLMo 3's do not");

    /* Qwen2.5: its default system prompt before the tools; a call, two results in one user turn, the answer */
    t = from_text(tmpl_qwen25, NULL, NULL);
    t.tools = tools_weather;
    expect(&t, q, 6, 1, "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.\n\n" QWEN_TOOLS_HEAD TOOLS_WEATHER_JSON QWEN_TOOLS_TAIL
           "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n" WEATHER_CALL "<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n"
           "</tool_response>\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n18 C and sunny.<|im_end|>\n<|im_start|>user\nThanks"
           "<|im_end|>\n<|im_start|>assistant\n", "Qwen2.5 with tools: the definitions in the system block, tool results as <tool_response> in one user turn");
    expect(&t, qs, 4, 1, "<|im_start|>system\nBe brief.\n\n" QWEN_TOOLS_HEAD TOOLS_WEATHER_JSON QWEN_TOOLS_TAIL "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
           "<|im_start|>assistant\n" WEATHER_CALL "<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
           "Qwen2.5 with tools and a system message (written once, before the tools)");
    t.tools = "[]";
    expect(&t, qs, 4, 0, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n" WEATHER_CALL
           "<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response><|im_end|>\n", "Qwen2.5 with an empty tool list: no tools block (Jinja's `if tools`)");
    t = from_text(tmpl_qwen3, NULL, NULL);
    t.tools = tools_weather;
    expect(&t, q, 4, 1, "<|im_start|>system\n" QWEN_TOOLS_HEAD TOOLS_WEATHER_JSON QWEN_TOOLS_TAIL "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
           WEATHER_CALL "<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response>\n<tool_response>\nsunny\n</tool_response>"
           "<|im_end|>\n<|im_start|>assistant\n", "Qwen3 with tools (no default system prompt; a call without reasoning that is not the last message: no block)");
    t = from_text(tmpl_smollm2, NULL, NULL);
    expect(&t, q + 2, 1, 0, "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>tool\n18 C<|im_end|>\n",
           "SmolLM2 (no tool_use): a tool message is a ChatML turn of its role, as its template writes it");

    /* Llama 3.2: Environment: ipython, the tools indented by 4 in the first user message, the result as a JSON string */
    t = from_text(tmpl_llama32, "<|begin_of_text|>", "<|eot_id|>");
    strcpy(t.date, "26 Jul 2024");
    t.tools = "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {}, \"tags\": [\"a\", 1.50]}}]";
    expect(&t, l, 4, 1, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nCutting Knowledge Date: December 2023\nToday Date: "
           "26 Jul 2024\n\nS<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, please respond with a JSON for a function call "
           "with its proper arguments that best answers the given prompt.\n\nRespond in the format {\"name\": function name, \"parameters\": dictionary of "
           "argument name and its value}.Do not use variables.\n\n{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"get_weather\",\n"
           "        \"parameters\": {},\n        \"tags\": [\n            \"a\",\n            1.5\n        ]\n    }\n}\n\nWeather?<|eot_id|>"
           "<|start_header_id|>assistant<|end_header_id|>\n\n{\"name\": \"get_weather\", \"parameters\": {}}<|eot_id|><|start_header_id|>ipython<|end_header_id|>"
           "\n\n\"{\\\"t\\\": 18}\\n\xc3\xa9\"<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
           "Llama 3.2 with tools: in the first user message, tojson(indent=4); a tool result as an ipython turn, JSON-quoted");
    t.tools = "[ ]";
    CHECK(srt_chat_render(&t, l, 2, 1, buf, sizeof buf, &len) == SRT_OK && strstr(buf, "Environment: ipython\n") && strstr(buf, "Do not use variables.\n\nWeather?<|eot_id|>"),
          "Llama 3.2 with an empty tool list: its tool prompt without tools (the template's `tools is not none`)");
    t.tools = NULL;
    expect(&t, l + 3, 1, 0, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>"
           "<|start_header_id|>ipython<|end_header_id|>\n\n\"{\\\"t\\\": 18}\\n\xc3\xa9\"<|eot_id|>", "Llama 3.2 without tools: a tool result is still an ipython turn");
    t.tools = tools_weather;
    st = srt_chat_render(&t, l, 1, 1, buf, sizeof buf, &len);
    CHECK(st == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "first message after the system one"), "Llama 3.2: tools without a user message refused (%s)",
          srt_last_error());
    {
        srt_chat_message m[2] = {{"user", "q"}, {"tool", "\xff"}};
        CHECK(srt_chat_render(&t, m, 2, 1, buf, sizeof buf, &len) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "not valid UTF-8"),
              "Llama 3.2: a tool result that is not valid UTF-8 refused (%s)", srt_last_error());
    }
    for (ok = 1, k = 0; formats_without[k]; k++) {
        t = from_text(formats_without[k], NULL, NULL);
        t.tools = tools_weather;
        ok = ok && srt_chat_render(&t, conv_ua, 3, 1, buf, sizeof buf, &len) == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "renders no tools");
    }
    CHECK(ok, "tools given to a template without them: SRT_ERR_UNSUPPORTED (%s)", srt_last_error());

    /* JSON written as Python's json.dumps writes it */
    for (i = 0; i < sizeof canon / sizeof canon[0]; i++)
        CHECK(!strcmp(tools_line(canon[i].in, line, sizeof line), canon[i].out), "tojson of %s: %s", canon[i].in, line);
    for (ok = 1, k = 0; bad[k]; k++) {
        t = from_text(tmpl_qwen25, NULL, NULL);
        t.tools = bad[k];
        st = srt_chat_render(&t, conv_ua, 3, 1, buf, sizeof buf, &len);
        if (bad[k][0] == 0) ok = ok && st == SRT_OK;   /* "" = no tools */
        else if (st != SRT_ERR_INVALID_ARG || !strstr(srt_last_error(), "not a JSON array of objects")) { ok = 0; printf("  tools %s: %s\n", bad[k], srt_status_str(st)); }
    }
    CHECK(ok, "%d malformed tool lists refused with where they go wrong (%s)", k - 1, srt_last_error());
    for (k = 0; k < 2; k++) {   /* 64 levels of nesting are read, 65 are not */
        int depth = 64 + k, j;
        char *p = deep;
        *p++ = '[';
        for (j = 0; j < depth; j++) p += sprintf(p, "{\"a\":");
        *p++ = '1';
        for (j = 0; j < depth; j++) *p++ = '}';
        *p++ = ']';
        *p = 0;
        CHECK((tools_line(deep, line, sizeof line)[0] != 0) == (k == 0), "%d levels of JSON %s", depth, k ? "refused" : "read");
    }
}

/* gpt-oss (harmony) with tools: the expected texts are what Jinja2 renders from the real template (its tool macros included) with
   Hugging Face's settings; a call's reasoning kept until a later reply answers; the schema's TypeScript with the template's quirks. */
static void test_tools_harmony(void) {
    static const char *call = "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather "
                              "<|constrain|>json<|message|>{\"city\":\"Paris\"}";
    static const char *probe = "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"description\": \"D\", \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"string\"}, \"y\": {\"type\": \"integer\"}}, \"required\": [\"x\"]}, \"b\": {\"oneOf\": [{\"type\": \"string\", \"description\": \"s\", \"default\": \"q\"}, {\"type\": \"number\"}], \"default\": \"zz\"}, \"c\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {\"z\": {\"type\": \"boolean\"}}}}, \"d\": {\"type\": \"string\", \"enum\": [\"u\", \"v\", 1], \"default\": \"u\", \"nullable\": true}, \"e\": {\"type\": [\"string\", \"null\"]}, \"f\": {\"type\": \"number\", \"default\": 1.5, \"description\": \"effe\"}}, \"required\": [\"a\"]}}}, {\"type\": \"function\", \"function\": {\"name\": \"now\", \"description\": \"The time.\"}}]";
    srt_chat_message h[6] = {{"system", "Be brief."}, {"user", "Weather in Paris?"}, {"assistant", NULL}, {"tool", "{\"temp\": 18}"}, {"assistant", "It is 18 C."},
                             {"user", "Thanks"}};
    srt_chat_template t = from_text(tmpl_gpt_oss, NULL, NULL);
    srt_chat_tool_call c[1];
    char buf[4096];
    size_t len;
    int n = -1, ok;
    h[2].content = call;
    strcpy(t.date, "2026-11-29");
    t.tools = tools_weather;
    expect(&t, h, 4, 1,
           "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2026-11-29\n\nReasoning"
           ": medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.\nCalls to these tools must go to the commentary"
           " channel: 'functions'.<|end|><|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\n## functions\n\nnamespace functions {\n\n// Weathe"
           "r in a city\ntype get_weather = (_: {\ncity: string,\n}) => any;\n\n} // namespace functions<|end|><|start|>user<|message|>Weather in Paris?<|end|><|s"
           "tart|>assistant<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"ci"
           "ty\": \"Paris\"}<|call|><|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>\"{\\\"temp\\\": 18}\"<|end|><|start|>assistant",
           "harmony with tools: the namespace in the developer message, the call's reasoning kept, the result as a JSON string");
    expect(&t, h, 6, 1,
           "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2026-11-29\n\nReasoning"
           ": medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.\nCalls to these tools must go to the commentary"
           " channel: 'functions'.<|end|><|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\n## functions\n\nnamespace functions {\n\n// Weathe"
           "r in a city\ntype get_weather = (_: {\ncity: string,\n}) => any;\n\n} // namespace functions<|end|><|start|>user<|message|>Weather in Paris?<|end|><|s"
           "tart|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}<|call|><|start|>functions.get_weather to=assistant<"
           "|channel|>commentary<|message|>\"{\\\"temp\\\": 18}\"<|end|><|start|>assistant<|channel|>final<|message|>It is 18 C.<|end|><|start|>user<|message|>Tha"
           "nks<|end|><|start|>assistant",
           "harmony: a call answered by a later reply drops its reasoning");
    t.tools = probe;
    expect(&t, h + 1, 1, 1,
           "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2026-11-29\n\nReasoning"
           ": medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.\nCalls to these tools must go to the commentary"
           " channel: 'functions'.<|end|><|start|>developer<|message|># Tools\n\n## functions\n\nnamespace functions {\n\n// D\ntype f = (_: {\na: {\nx: \n       "
           "         string, y?: \n                number},\nb?: string// s                    // default: \"q\" | \nnumber// default: zz,\nc?: {\nz?: \n         "
           "       boolean}[],\nd?: \"u\" | \"v\" | \"1\", // default: u,\ne?: string | null,\n// effe\nf?: number, // default: 1.5,\n}) => any;\n\n// The time.\n"
           "type now = () => any;\n\n} // namespace functions<|end|><|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant",
           "harmony: nested objects, oneOf, arrays of objects, enums, type lists and defaults as the template writes them");
    t.tools = "[{\"type\": \"function\", \"function\": {\"name\": \"now\", \"parameters\": {}}}]";
    CHECK(srt_chat_render(&t, h, 2, 1, buf, sizeof buf, &len) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "description is not a string"),
          "harmony: a tool without a description refused, as the template raises (%s)", srt_last_error());
    t.tools = "[{\"type\": \"function\", \"function\": {\"name\": \"now\", \"description\": \"a\\u0000b\", \"parameters\": {}}}]";
    CHECK(srt_chat_render(&t, h, 2, 1, buf, sizeof buf, &len) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "U+0000"),
          "harmony: a description holding U+0000 refused (written as text it would end the rendered text; fuzz_tools found it) (%s)", srt_last_error());
    t.tools = NULL;
    h[2].content = "plain";
    CHECK(srt_chat_render(&t, h, 4, 1, buf, sizeof buf, &len) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "no reply before it calls a tool"),
          "harmony: a tool result with no call before it refused (%s)", srt_last_error());
    ok = srt_chat_tool_calls(&t, call, c, 1, &n) == SRT_OK && n == 1 && c[0].name_len == 11 && !strncmp(c[0].name, "get_weather", 11) &&
         c[0].arguments_len == 16 && !strncmp(c[0].arguments, "{\"city\":\"Paris\"}", 16);
    ok = ok && srt_chat_tool_calls(&t, "<|start|>assistant to=functions.now<|channel|>commentary json<|message|>{}", c, 1, &n) == SRT_OK && n == 1 &&
         c[0].name_len == 3 && c[0].arguments_len == 2;
    ok = ok && srt_chat_tool_calls(&t, "<|channel|>analysis<|message|>use to=functions.x?<|end|><|start|>assistant<|channel|>final<|message|>No.", c, 1, &n) == SRT_OK &&
         n == 0;
    CHECK(ok, "harmony: a reply's call in either header form; text about a call in the reasoning is none");
    ok = srt_chat_tool_calls(&t, "<|channel|>commentary to=functions. <|message|>{}", c, 1, &n) == SRT_ERR_FORMAT && n == 0;
    ok = ok && srt_chat_tool_calls(&t, "<|channel|>commentary to=functions.f json", c, 1, &n) == SRT_ERR_FORMAT;
    ok = ok && srt_chat_tool_calls(&t, "<|channel|>commentary to=functions.f <|constrain|>json<|message|>[1]", c, 1, &n) == SRT_ERR_FORMAT;
    ok = ok && srt_chat_tool_calls(&t, "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{} x", c, 1, &n) == SRT_ERR_FORMAT;
    CHECK(ok, "harmony: a call without a name, a message or an object for arguments: SRT_ERR_FORMAT (%s)", srt_last_error());
}

/* SmolLM3's template: its system block always (metadata, reasoning mode, custom instructions), the reasoning mode from no_think or
   the system message, /system_override, tool results as user turns; the expected texts are what Jinja2 renders from the template
   with Hugging Face's settings (today as "29 November 2026"). A chat on a tiny model feeds only each new turn. */
static void test_smollm3(void) {
    static const srt_chat_message s2[4] = {{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "<think>\nR\n</think>\nHello"}, {"user", "Q2"}};
    static const srt_chat_message s3[4] = {{"system", "Be brief. /no_think"}, {"user", "Hi"}, {"assistant", "<think>\nR\n</think>\nHello"}, {"user", "Q2"}};
    static const srt_chat_message s4[2] = {{"system", "Only this. /system_override"}, {"user", "Hi"}};
    static const srt_chat_message s5[5] = {{"system", "/think"}, {"user", "Hi"}, {"assistant", "\n\nA"}, {"tool", "18 C"}, {"system", "late"}};
    static const char *meta = "<|im_start|>system\n## Metadata\n\nKnowledge Cutoff Date: June 2025\nToday Date: 29 November 2026\nReasoning Mode: ";
    srt_chat_template t = from_text(tmpl_smollm3, NULL, NULL);
    srt_chat_reply_parts rp;
    srt_model *m = NULL;
    char want[4096];
    CHECK(t.format == SRT_CHAT_SMOLLM3 && !t.guessed && !strcmp(t.stop[0], "<|im_end|>") && strlen(t.date) >= 15 && t.date[2] == ' ',
          "SmolLM3's template recognised as smollm3 (today as \"%s\"), not as ChatML", t.date);
    strcpy(t.date, "29 November 2026");
    snprintf(want, sizeof want, "%s/think\n\n## Custom Instructions\n\nBe brief.\n\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nR\n</think>\n"
             "Hello<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n", meta);
    expect(&t, s2, 4, 1, want, "SmolLM3: the metadata block with the system message as custom instructions (no <|im_end|> after it, as the template writes it)");
    snprintf(want, sizeof want, "%s/no_think\n\n## Custom Instructions\n\nBe brief.\n\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n"
             "<think>\nR\n</think>\nHello<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n", meta);
    expect(&t, s3, 4, 1, want, "SmolLM3: /no_think in the system message (taken out of it): every reply opens with an empty reasoning block");
    expect(&t, s4, 2, 1, "<|im_start|>system\nOnly this.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", "SmolLM3: /system_override writes the instructions alone");
    t.no_think = 1;
    snprintf(want, sizeof want, "%s/no_think\n\n## Custom Instructions\n\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face.\n\n<|im_start|>user\nHi<|im_end|>\n"
             "<|im_start|>assistant\n<think>\n\n</think>\n", meta);
    expect(&t, s2 + 1, 1, 1, want, "SmolLM3 with no_think (enable_thinking=false): its short default instructions, an empty block opening the reply");
    {
        char buf[4096];
        size_t len;
        CHECK(srt_chat_render(&t, s5, 5, 0, buf, sizeof buf, &len) == SRT_OK && strstr(buf, "Reasoning Mode: /think\n") && strstr(buf, "Thought section") &&
                  strstr(buf, "<|im_start|>assistant\nA<|im_end|>\n<|im_start|>user\n18 C<|im_end|>\n") && !strstr(buf, "late"),
              "SmolLM3: /think in the system message wins over no_think; a reply's leading newlines dropped, a tool result a user turn, a later system message nothing");
    }
    {   /* its xml_tools, written by Python's str() (single quotes, True / None, a float as its repr), then <|im_end|>; calls as Qwen's */
        static const srt_chat_message u[2] = {{"system", "Be brief. /no_think"}, {"user", "hi"}};
        srt_chat_template tt = from_text(tmpl_smollm3, NULL, NULL);
        srt_chat_tool_call call[1];
        int nc = 0;
        strcpy(tt.date, "29 November 2026");
        tt.tools = "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather in a city, e.g. \\\"Paris\\\" or l'\\u00eele\", "
                   "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\", \"default\": 1.5e1}}, "
                   "\"required\": [\"city\"], \"strict\": true, \"extra\": null}}}]";
        snprintf(want, sizeof want, "%s/no_think\n\n## Custom Instructions\n\nBe brief.\n\n### Tools\n\nYou may call one or more functions to assist with the user query.\n"
                 "You are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n{'type': 'function', 'function': {'name': 'get_weather', "
                 "'description': 'Weather in a city, e.g. \"Paris\" or l\\'\xc3\xaele', 'parameters': {'type': 'object', 'properties': {'city': {'type': 'string'}, "
                 "'days': {'type': 'integer', 'default': 15.0}}, 'required': ['city'], 'strict': True, 'extra': None}}}\n</tools>\n\nFor each function call, return a "
                 "json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
                 "<args-json-object>}\n</tool_call>\n\n<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n", meta);
        CHECK(tt.tool_use, "SmolLM3's template renders tools (its xml_tools)");
        expect(&tt, u, 2, 1, want, "SmolLM3 with tools: each written by Python's str(), as its template does");
        CHECK(srt_chat_tool_calls(&tt, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", call, 1, &nc) == SRT_OK && nc == 1 &&
                  call[0].name_len == 11, "SmolLM3: a reply's <tool_call> read as Qwen's");
    }
    srt_chat_reply_split(&t, "<think>\nR\n</think>\nA", &rp);
    CHECK(rp.reasons && rp.reasoning_len == 3 && !strncmp(rp.reasoning, "\nR\n", 3) && rp.answer_len == 1 && rp.answer[0] == 'A', "SmolLM3: a reply's reasoning and answer apart");
    if (!write_tiny_model_arch(TMP "/smollm3.srt", "llama", tmpl_smollm3, SRT_Q8, NULL, NULL, 1) || load_1t(TMP "/smollm3.srt", &m) != SRT_OK) {
        CHECK(0, "a tiny model with SmolLM3's template: %s", srt_last_error());
        return;
    }
    {
        srt_session_desc sd;
        srt_chat_desc cd;
        srt_session *s = NULL;
        srt_chat *c = NULL;
        srt_chat_turn t1, t2;
        int32_t tok;
        int end = SRT_CHAT_GOING, ok;
        memset(&sd, 0, sizeof sd); memset(&cd, 0, sizeof cd); memset(&t1, 0, sizeof t1); memset(&t2, 0, sizeof t2);
        sd.n_ctx = 1024;
        cd.max_tokens = 5;
        cd.no_think = 1;
        ok = srt_session_create(m, &sd, &s) == SRT_OK && srt_chat_create(s, &cd, &c) == SRT_OK && srt_chat_send(c, "hello", &t1) == SRT_OK &&
             !strncmp(t1.text, "<|im_start|>system\n## Metadata", 30) && strstr(t1.text, "/no_think") &&
             !strcmp(t1.text + t1.text_len - 40, "<|im_start|>assistant\n<think>\n\n</think>\n");
        while (ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK) {}
        ok = ok && srt_chat_send(c, "again", &t2) == SRT_OK && !t2.rerendered && !t2.from_start;
        CHECK(ok, "SmolLM3 chat with no_think: the metadata block first, each turn feeds only itself (rerendered %d, from_start %d)", t2.rerendered, t2.from_start);
        if (!ok) printf("  t1 [%s]\n  t2 [%s]\n", t1.text ? t1.text : "", t2.text ? t2.text : "");
        srt_chat_destroy(c);
        srt_session_destroy(s);
    }
    srt_model_free(m);
}

static void test_tool_calls(void) {
    static const char *reply2 = "Let me check.\n" WEATHER_CALL "\n<tool_call>\n{\"arguments\": {}, \"name\": \"now\"}\n</tool_call>";
    static const char *const bad[] = {"<tool_call>\n{\"name\": \"x\"}\n</tool_call>", "<tool_call>{bad}</tool_call>", "<tool_call>\n{\"name\": \"x\", \"arguments\": {}}",
                                      "<tool_call>{\"name\": \"a\\u0062\", \"arguments\": {}}</tool_call>", "<tool_call>{\"name\": \"x\", \"arguments\": \"{}\"}</tool_call>",
                                      "<tool_call>{\"name\": \"x\", \"arguments\": {}} {}</tool_call>", NULL};
    srt_chat_template q = from_text(tmpl_qwen25, NULL, NULL), l = from_text(tmpl_llama32, NULL, NULL), g = from_text(tmpl_gemma3, NULL, NULL);
    srt_chat_tool_call c[2];
    int n = -1, ok, k;
    ok = srt_chat_tool_calls(&q, reply2, c, 2, &n) == SRT_OK && n == 2 && c[0].name_len == 11 && !strncmp(c[0].name, "get_weather", 11) &&
         c[0].arguments_len == 17 && !strncmp(c[0].arguments, "{\"city\": \"Paris\"}", 17) && c[1].name_len == 3 && !strncmp(c[1].name, "now", 3) &&
         c[1].arguments_len == 2 && !strncmp(c[1].arguments, "{}", 2);
    CHECK(ok, "chatml: two <tool_call> blocks after some text: their names and arguments (as written) in order");
    c[1].name = NULL;
    CHECK(srt_chat_tool_calls(&q, reply2, c, 1, &n) == SRT_OK && n == 2 && c[1].name == NULL, "cap 1: both counted, one written");
    CHECK(srt_chat_tool_calls(&q, "<tool_call>{\"name\": \"say\", \"arguments\": {\"text\": \"</tool_call>\"}}</tool_call>", c, 2, &n) == SRT_OK && n == 1 &&
              c[0].arguments_len == 24, "a JSON string holding </tool_call> is read as JSON");
    CHECK(srt_chat_tool_calls(&q, "The weather is fine.", c, 2, &n) == SRT_OK && n == 0 && srt_chat_tool_calls(&q, NULL, NULL, 0, &n) == SRT_OK && n == 0,
          "a reply without calls (and NULL) calls nothing");
    for (ok = 1, k = 0; bad[k]; k++) {
        n = -1;
        if (srt_chat_tool_calls(&q, bad[k], c, 2, &n) != SRT_ERR_FORMAT || n != 0 || !strstr(srt_last_error(), "tool call 1")) { ok = 0; printf("  %s: %s\n", bad[k], srt_last_error()); }
    }
    CHECK(ok, "%d malformed <tool_call> blocks: SRT_ERR_FORMAT saying what is wrong (%s)", k, srt_last_error());
    ok = srt_chat_tool_calls(&l, " {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n", c, 2, &n) == SRT_OK && n == 1 &&
         !strncmp(c[0].name, "get_weather", c[0].name_len) && c[0].arguments_len == 17;
    ok = ok && srt_chat_tool_calls(&l, "<|python_tag|>{\"name\": \"f\", \"arguments\": {\"x\": [1, 2]}}", c, 2, &n) == SRT_OK && n == 1 && c[0].arguments_len == 13;
    CHECK(ok, "llama3: a reply that is one JSON call (parameters or arguments; after <|python_tag|>)");
    ok = 1;
    ok = ok && srt_chat_tool_calls(&l, "It is 4.", c, 2, &n) == SRT_OK && n == 0;
    ok = ok && srt_chat_tool_calls(&l, "{\"a\": 1}", c, 2, &n) == SRT_OK && n == 0;
    ok = ok && srt_chat_tool_calls(&l, "{\"name\": \"f\", \"parameters\": {}} and more", c, 2, &n) == SRT_OK && n == 0;
    ok = ok && srt_chat_tool_calls(&g, WEATHER_CALL, c, 2, &n) == SRT_OK && n == 0;
    ok = ok && srt_chat_tool_calls(&q, "x", c, -1, &n) == SRT_ERR_INVALID_ARG && srt_chat_tool_calls(NULL, "x", c, 1, &n) == SRT_ERR_INVALID_ARG;
    CHECK(ok, "llama3: other replies call nothing; gemma has no tool calls; bad arguments refused");
}

/* A chat with tools on a tiny model with Qwen2.5's template: the definitions in the first turn, two results sent as one turn
   (only they and the reply's opening fed), undo takes both back, refusals; old exchanges with their tool turns dropped whole. */
static void test_tool_chat(void) {
    srt_model *m = NULL, *plain = NULL;
    srt_session_desc sd;
    srt_chat_desc cd;
    srt_session *s = NULL;
    srt_chat *c = NULL;
    srt_chat_turn t1, t2;
    const srt_chat_message *ms;
    srt_chat_message res[2] = {{"tool", "18 C"}, {"tool", "sunny"}}, wrong[1] = {{"assistant", "x"}};
    int32_t tok;
    int end = SRT_CHAT_GOING, ok, n = 0, round;
    char tools_copy[512];
    if (!write_tiny_model_arch(TMP "/qwen25tools.srt", "llama", tmpl_qwen25, SRT_Q8, NULL, NULL, 1) || load_1t(TMP "/qwen25tools.srt", &m) != SRT_OK ||
        !write_tiny_model_arch(TMP "/smol.srt", "llama", tmpl_smollm2, SRT_Q8, NULL, NULL, 1) || load_1t(TMP "/smol.srt", &plain) != SRT_OK) {
        CHECK(0, "tiny models with Qwen2.5's and SmolLM2's templates: %s", srt_last_error());
        srt_model_free(m);
        return;
    }
    memset(&sd, 0, sizeof sd); memset(&cd, 0, sizeof cd); memset(&t1, 0, sizeof t1); memset(&t2, 0, sizeof t2);
    sd.n_ctx = 2048;
    cd.max_tokens = 4;
    strcpy(tools_copy, tools_weather);
    cd.tools = tools_copy;
    ok = srt_session_create(plain, &sd, &s) == SRT_OK && srt_chat_create(s, &cd, &c) == SRT_ERR_UNSUPPORTED && !c && strstr(srt_last_error(), "renders no tools");
    srt_session_destroy(s); s = NULL;
    CHECK(ok, "a chat with tools on a template without them refused (%s)", srt_last_error());
    if (srt_session_create(m, &sd, &s) != SRT_OK) { CHECK(0, "session: %s", srt_last_error()); goto done; }
    cd.tools = "[{\"type\": \"function\",}]";
    CHECK(srt_chat_create(s, &cd, &c) == SRT_ERR_INVALID_ARG && !c && strstr(srt_last_error(), "at byte 1"), "malformed tools refused (%s)", srt_last_error());
    cd.tools = tools_copy;
    if (srt_chat_create(s, &cd, &c) != SRT_OK) { CHECK(0, "tool chat: %s", srt_last_error()); goto done; }
    memset(tools_copy, 0, sizeof tools_copy);   /* the chat keeps its own copy */
    ok = srt_chat_send(c, "Weather in Paris?", &t1) == SRT_OK && strstr(t1.text, QWEN_TOOLS_HEAD TOOLS_WEATHER_JSON QWEN_TOOLS_TAIL "<|im_start|>user\nWeather in Paris?");
    CHECK(ok, "the first turn lists the tools in the system block");
    while (ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK) {}
    ok = ok && srt_chat_send_messages(c, res, 2, &t2) == SRT_OK && !t2.rerendered && !t2.from_start &&
         !strcmp(t2.text, "<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response>\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n");
    ms = srt_chat_messages(c, &n);
    CHECK(ok && n == 5 && !strcmp(ms[2].role, "tool") && !strcmp(ms[3].content, "sunny") && !strcmp(ms[4].role, "assistant"),
          "two tool results sent as one turn: only they and the reply's opening are fed (%s)", ok ? "" : srt_last_error());
    ok = srt_chat_undo(c) == SRT_OK && (ms = srt_chat_messages(c, &n)) != NULL && n == 2 && srt_session_pos(s) == t2.n_kept;
    CHECK(ok, "undo takes both results back (the session at %d tokens)", srt_session_pos(s));
    ok = srt_chat_send_messages(c, wrong, 1, NULL) == SRT_ERR_INVALID_ARG && srt_chat_send_messages(c, res, 0, NULL) == SRT_ERR_INVALID_ARG &&
         (srt_chat_messages(c, &n), n == 2);
    wrong[0].role = "system";
    ok = ok && srt_chat_send_messages(c, wrong, 1, NULL) == SRT_ERR_INVALID_ARG && (srt_chat_messages(c, &n), n == 2);
    CHECK(ok, "assistant and system messages, or none, are not sent (nothing kept)");
    for (round = 0; round < 60 && !t1.n_dropped; round++) {   /* fill the context with tool exchanges */
        ok = srt_chat_send(c, "Weather in Paris, and the next days, and the days after those?", &t1) == SRT_OK;
        for (end = SRT_CHAT_GOING; ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK;) {}
        if (ok && !t1.n_dropped) ok = srt_chat_send_messages(c, res, 2, &t1) == SRT_OK;
        for (end = SRT_CHAT_GOING; ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK;) {}
        if (!ok) break;
    }
    ms = srt_chat_messages(c, &n);
    {
        int j, orphan = 0;
        for (j = 0; j < n; j++) orphan |= !strcmp(ms[j].role, "tool") && (j == 0 || !strcmp(ms[j - 1].role, "user"));
        CHECK(ok && t1.n_dropped > 0 && n >= 2 && strcmp(ms[0].role, "tool") != 0 && !orphan, "a full context drops whole exchanges, never the reply "
              "before tool results (after %d rounds, %d dropped, %d messages left, the first %s)", round, t1.n_dropped, n, n ? ms[0].role : "-");
    }
    {   /* results that need every earlier exchange's room: the reply that called the tools stays, with them */
        srt_chat_turn t3;
        const char *big = "Weather in Paris, and the next days, and the days after those, and the weeks after those, and the months after those?";
        srt_chat_reset(c);
        ok = srt_chat_send(c, big, NULL) == SRT_OK;
        for (end = SRT_CHAT_GOING; ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK;) {}
        for (round = 0; ok && round < 60; round++) {   /* results until the next ones do not fit beside the first exchange */
            memset(&t3, 0, sizeof t3);
            ok = srt_chat_send_messages(c, res, 2, &t3) == SRT_OK;
            for (end = SRT_CHAT_GOING; ok && end == SRT_CHAT_GOING && srt_chat_next(c, &tok, &end) == SRT_OK;) {}
            if (t3.n_dropped) break;
        }
        ms = srt_chat_messages(c, &n);
        CHECK(ok && t3.n_dropped > 0 && n >= 4 && !strcmp(ms[n - 4].role, "assistant") && !strcmp(ms[n - 3].role, "tool") && !strcmp(ms[0].role, "assistant"),
              "tool results that need the room of every earlier message keep the reply that called them (%d messages, the first %s)", n, n ? ms[0].role : "-");
    }
    {   /* srt-chat --tools: the definitions fed, /tool's result fed as a tool response; bad files refused */
        FILE *f = fopen(TMP "/tools.json", "wb");
        char *err = NULL;
        size_t len;
        if (f) { fputs(tools_weather, f); fclose(f); }
        ok = run("printf 'Weather in Paris?\\n/tool 18 C\\n' | build/srt-chat -m " TMP "/qwen25tools.srt --tools " TMP "/tools.json --show-prompt -c 2048 -n 3 --temp 0 "
                 "-t 1 >" TMP "/out.txt 2>" TMP "/err.txt") == 0 && (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL;
        CHECK(ok && strstr(err, "<tools>\n" TOOLS_WEATHER_JSON "\n</tools>") &&
                  strstr(err, " tokens: \"<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response><|im_end|>\n<|im_start|>assistant\n\"]"),
              "srt-chat --tools: the tools in the first turn, /tool 18 C fed as a tool response");
        free(err); err = NULL;
        f = fopen(TMP "/tools.json", "wb");
        if (f) { fputs("[{\"type\": }]", f); fclose(f); }
        ok = run("build/srt-chat -m " TMP "/qwen25tools.srt --tools " TMP "/tools.json --chat -p hi -n 2 -t 1 >" TMP "/out.txt 2>" TMP "/err.txt") != 0 &&
             (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL && strstr(err, "not a JSON array of objects");
        free(err); err = NULL;
        ok = ok && run("build/srt-chat -m " TMP "/smol.srt --tools " TMP "/tools.json -p hi -n 2 -t 1 --no-chat >" TMP "/out.txt 2>" TMP "/err.txt") != 0 &&
             (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL && strstr(err, "--tools needs a chat");
        free(err); err = NULL;
        ok = ok && run("build/srt-chat -m " TMP "/qwen25tools.srt --tools " TMP "/none.json --chat -p hi -n 2 -t 1 >" TMP "/out.txt 2>" TMP "/err.txt") != 0 &&
             (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL && strstr(err, "cannot read");
        CHECK(ok, "srt-chat --tools: malformed, without a chat, missing: refused (%s)", err ? err : "");
        free(err); err = NULL;
        {   /* srt-pack --chat-template: a llama2.c checkpoint gets Qwen2.5's template (with tools); empty or missing files refused */
            srt_model *st = NULL;
            srt_chat_template ct;
            f = fopen(TMP "/qwen25.jinja", "wb");
            if (f) { fputs(tmpl_qwen25, f); fclose(f); }
            f = fopen(TMP "/empty.jinja", "wb");
            if (f) fclose(f);
            ok = run("build/srt-pack -q --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin --chat-template " TMP "/qwen25.jinja " SRT_SHARED
                     "/models/stories260K/stories260K.bin " TMP "/st-tmpl.srt") == 0 && load_1t(TMP "/st-tmpl.srt", &st) == SRT_OK &&
                 srt_chat_template_from_model(st, NULL, &ct) == SRT_OK && ct.format == SRT_CHAT_CHATML && !ct.guessed && ct.tool_use &&
                 !strcmp(ct.default_system, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
            srt_model_free(st);
            CHECK(ok, "srt-pack --chat-template: a llama2.c checkpoint packed with Qwen2.5's template chats with its tools");
            ok = run("build/srt-pack -q --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin --chat-template " TMP "/empty.jinja " SRT_SHARED
                     "/models/stories260K/stories260K.bin " TMP "/st-tmpl2.srt 2>" TMP "/err.txt") != 0 && (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL &&
                 strstr(err, "is empty");
            free(err); err = NULL;
            ok = ok && run("build/srt-pack -q --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin --chat-template " TMP "/none.jinja " SRT_SHARED
                           "/models/stories260K/stories260K.bin " TMP "/st-tmpl2.srt 2>" TMP "/err.txt") != 0 && (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL &&
                 strstr(err, "cannot read the chat template");
            CHECK(ok, "srt-pack --chat-template: an empty or missing file refused (%s)", err ? err : "");
            free(err); err = NULL;
        }
        {   /* a conversation whose last reply calls two tools: /load lists the calls, two /tool lines answer them in one turn */
            srt_chat_message conv[2] = {{"user", "Weather in Paris?"}, {"assistant", "Let me check.\n" WEATHER_CALL "\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"}};
            f = fopen(TMP "/tools.json", "wb");
            if (f) { fputs(tools_weather, f); fclose(f); }
            srt_session_reset(s);
            ok = srt_session_save_chat(s, TMP "/calls.chat", conv, 2) == SRT_OK &&
                 run("printf '/load " TMP "/calls.chat\\n/tool 18 C\\n/tool 12:00\\n' | build/srt-chat -m " TMP "/qwen25tools.srt --tools " TMP "/tools.json "
                     "--show-prompt -c 2048 -n 3 --temp 0 -t 1 >" TMP "/out.txt 2>" TMP "/err.txt") == 0 && (err = srt_test_read_file(TMP "/err.txt", &len)) != NULL;
            CHECK(ok && strstr(err, "(tool call) get_weather {\"city\": \"Paris\"}\n(tool call) now {}\n(answer with /tool RESULT, one line per call, in order)") &&
                      strstr(err, "(result 1 of 2)") && strstr(err, "<|im_start|>user\n<tool_response>\n18 C\n</tool_response>\n<tool_response>\n12:00\n"
                                                            "</tool_response><|im_end|>\n<|im_start|>assistant\n\"]"),
                  "srt-chat --tools: a loaded reply's two calls listed, their two results fed as one turn");
            free(err);
        }
    }
done:
    srt_chat_destroy(c);
    srt_session_destroy(s);
    srt_model_free(m);
    srt_model_free(plain);
}

int main(void) {
    if (system("mkdir -p " TMP) != 0) { printf("FAIL - cannot make " TMP "\n"); return 1; }
    snprintf(tmpl_gpt_oss_text, sizeof tmpl_gpt_oss_text, "%s%s%s%s%s", tmpl_gpt_oss_parts[0], tmpl_gpt_oss_parts[1], tmpl_gpt_oss_parts[2],
             tmpl_gpt_oss_parts[3], tmpl_gpt_oss_parts[4]);
    snprintf(tmpl_smollm3, sizeof tmpl_smollm3, "%s%s", tmpl_smollm3_parts[0], tmpl_smollm3_parts[1]);
    test_names();
    test_detect();
    test_render();
    test_reply_split();
    test_eog_list();
    test_from_model();
    test_srt_chat();
    test_chat_api();
    test_chat_random();
    test_think_chat();
    test_harmony_chat();
    test_smollm3();
    test_tools_render();
    test_tools_harmony();
    test_tool_calls();
    test_tool_chat();
    test_cuda_chat();
    if (!getenv("KEEP") && system("rm -rf " TMP) != 0) CHECK(0, "remove " TMP);
    return srt_test_finish();
}
