import os, sys
from typing import Any, List as L
import json
