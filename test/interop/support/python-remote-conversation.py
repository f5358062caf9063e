"""Attaches the Python SDK's RemoteConversation to a server and prints what it reads.

Usage: python python-remote-conversation.py URL CONVERSATION_ID API_KEY LIVE_EVENT_ID
Prints a line `attached <json>` with the conversation's state and its events (id and
kind) as the SDK loaded them, then waits for the event LIVE_EVENT_ID to reach its
callbacks over the socket and prints `live <id>`; exits 3 when it never comes.
"""

import json
import sys
import threading
import uuid

from openhands.sdk import LLM, Agent
from openhands.sdk.conversation.impl.remote_conversation import RemoteConversation
from openhands.sdk.workspace import RemoteWorkspace

url, conversation_id, api_key, live_event_id = sys.argv[1:5]
arrived = threading.Event()


def workspace_dir(workspace):
    """The remote state hands the workspace over as the server sent it, a dict."""
    return workspace["working_dir"] if isinstance(workspace, dict) else workspace.working_dir


def on_event(event):
    if event.id == live_event_id:
        arrived.set()


workspace = RemoteWorkspace(host=url, working_dir="/workspace/project", api_key=api_key)
agent = Agent(llm=LLM(model="openai/gpt-4o-mini", api_key="unused", usage_id="agent"), tools=[])
conversation = RemoteConversation(
    agent=agent,
    workspace=workspace,
    conversation_id=uuid.UUID(conversation_id),
    callbacks=[on_event],
    visualizer=None,
)
try:
    state = conversation.state
    summary = {
        "id": str(conversation.id),
        "execution_status": str(state.execution_status.value),
        "agent_model": state.agent.llm.model,
        "workspace": workspace_dir(state.workspace),
        "events": [{"id": event.id, "kind": type(event).__name__} for event in state.events],
    }
    print("attached " + json.dumps(summary), flush=True)
    if not arrived.wait(timeout=30):
        sys.exit(3)
    print("live " + live_event_id, flush=True)
finally:
    conversation.close()
